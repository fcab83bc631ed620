/**
 * The folder boundaries of ../shared/DESIGN.md ("Folders under src/"), enforced on every `make test`:
 * a request flows filters → handler → registry → storage → etcd, and nothing points back up.
 */
const allowed = {
  api: [],
  metrics: [],
  config: ['api'],
  storage: ['api', 'metrics'],
  encryption: ['api', 'storage'],
  apply: ['api'],
  patch: ['api'],
  // A plugin decodes its own configuration with the versioned-config loader; admission webhooks
  // apply their JSON patches as kube does.
  admission: ['api', 'config', 'patch'],
  auth: ['api'],
  audit: ['api'],
  registry: ['api', 'storage', 'apply', 'patch', 'admission', 'metrics'],
  controllers: ['api', 'registry'],
  endpoints: ['api', 'registry', 'apply', 'admission', 'auth', 'audit', 'metrics'],
};

const folderRules = Object.entries(allowed).map(([folder, deps]) => ({
  name: `${folder}-imports`,
  comment: `src/${folder}/ may import only: ${deps.join(', ') || 'nothing of ours'}`,
  severity: 'error',
  from: { path: `^src/${folder}/` },
  to: { path: `^src/(?!(${[folder, ...deps].join('|')})/)` },
}));

module.exports = {
  forbidden: [
    ...folderRules,
    {
      name: 'registry-admission-types-only',
      comment: 'the registry uses admission plugins only through their types; server/ wires them',
      severity: 'error',
      from: { path: '^src/registry/' },
      to: { path: '^src/admission/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'endpoints-auth-types-only',
      severity: 'error',
      from: { path: '^src/endpoints/' },
      to: { path: '^src/auth/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'etcd3-only-in-storage-etcd',
      comment: 'only storage/etcd/ talks to etcd',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/storage/etcd/' },
      to: { path: 'node_modules/(etcd3|cockatiel)/' },
    },
    {
      name: 'express-only-in-server-and-endpoints',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(server|endpoints)/' },
      to: { path: 'node_modules/express/' },
    },
    {
      name: 'resource-declarations-registered-once',
      comment: 'a resource is one declaration plus one line in registry/resources/index.ts: nothing else imports a declaration',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/registry/resources/' },
      to: { path: '^src/registry/resources/[^/]+/' },
    },
    {
      name: 'admission-plugins-registered-once',
      comment: 'an admission plugin is one file plus one line in admission/register-all.ts; the chain reaches it only by name',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/admission/(register-all\\.ts|index\\.ts|plugins/)' },
      to: { path: '^src/admission/plugins/' },
    },
    {
      name: 'main-is-the-only-composition-root',
      severity: 'error',
      from: { path: '^src/(?!main\\.ts)' },
      to: { path: '^src/main\\.ts$' },
    },
    { name: 'no-circular-folders', severity: 'warn', from: { path: '^src/' }, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
