/** The /version document: kube's version.Info for the release whose behaviour we serve. */
export const versionInfo = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.4',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-01-01T00:00:00Z',
  goVersion: 'go1.23.6',
  compiler: 'gc',
  platform: 'linux/amd64',
};
