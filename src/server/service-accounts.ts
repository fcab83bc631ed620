/**
 * Service-account tokens wired from the flags: the signing key (--service-account-signing-key-file,
 * or one generated in --cert-dir), the issuers, the verification keys and the API audiences; the
 * issuer serviceaccounts/token uses and the authenticator main.ts places in the chain.
 */
import { generateKeyPair, type KeyObject } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  ServiceAccountAuthenticator,
  ServiceAccountTokenSigner,
  parseSigningKey,
  parseVerificationKeys,
  tokenClaims,
  type ObjectLookup,
} from '../auth/authn/service-account';
import type { ServiceAccountTokenIssuer } from '../registry';
import { writeFileAtomic } from './certs';

/**
 * The issuer when --service-account-issuer is not given. kube-apiserver requires the flag; this
 * server picks the value kubeadm and most installers set, the cluster's in-cluster API URL.
 */
export const defaultServiceAccountIssuer = 'https://kubernetes.default.svc.cluster.local';
/** The generated signing key, in --cert-dir. */
export const generatedSigningKeyFile = 'service-account.key';

export interface ServiceAccountConfig {
  serviceAccountIssuers: string[];
  serviceAccountKeyFiles: string[];
  serviceAccountSigningKeyFile?: string;
  apiAudiences: string[];
  serviceAccountMaxTokenExpirationSeconds: number;
  /** `--service-account-jwks-uri`. */
  serviceAccountJwksUri?: string;
  certDir: string;
}

/** What issuer discovery serves: the signing issuer, every verification key, and the jwks_uri when a flag fixes it. */
export interface IssuerDiscovery {
  issuer: string;
  keys: KeyObject[];
  jwksUri?: string;
}

export interface ServiceAccountTokens {
  issuers: string[];
  apiAudiences: string[];
  /** The signing key and every --service-account-key-file key. */
  verificationKeys: KeyObject[];
  issuer: ServiceAccountTokenIssuer;
  /** What issuer discovery serves (ApiServerOptions.issuerDiscovery): the signing issuer and every key. */
  discovery: IssuerDiscovery;
  authenticator(lookup: ObjectLookup, onFailure?: (reason: string) => void): ServiceAccountAuthenticator;
}

/** The signing key: the flag's file, else `<certDir>/service-account.key`, generated (RSA 2048, 0600) the first time. */
async function signingKey(config: ServiceAccountConfig): Promise<KeyObject> {
  if (config.serviceAccountSigningKeyFile) {
    const file = config.serviceAccountSigningKeyFile;
    return parseSigningKey(await fs.readFile(file, 'utf8'), file);
  }
  const file = path.join(config.certDir, generatedSigningKeyFile);
  try {
    return parseSigningKey(await fs.readFile(file, 'utf8'), file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await fs.mkdir(config.certDir, { recursive: true, mode: 0o700 });
  // Off the event loop: an RSA 2048 key takes a noticeable moment, and start-up loads other things meanwhile.
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  await writeFileAtomic(file, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 0o600);
  return privateKey;
}

export async function loadServiceAccountTokens(config: ServiceAccountConfig): Promise<ServiceAccountTokens> {
  const issuers = config.serviceAccountIssuers.length ? config.serviceAccountIssuers : [defaultServiceAccountIssuer];
  // kube: --api-audiences defaults to the issuers.
  const apiAudiences = config.apiAudiences.length ? config.apiAudiences : issuers;
  const key = await signingKey(config);
  const verificationKeys = [key];
  for (const file of config.serviceAccountKeyFiles) verificationKeys.push(...parseVerificationKeys(await fs.readFile(file, 'utf8'), file));
  const signer = new ServiceAccountTokenSigner(issuers[0] as string, key);
  return {
    issuers,
    apiAudiences,
    verificationKeys,
    discovery: { issuer: issuers[0] as string, keys: verificationKeys, ...(config.serviceAccountJwksUri ? { jwksUri: config.serviceAccountJwksUri } : {}) },
    issuer: {
      apiAudiences,
      maxExpirationSeconds: config.serviceAccountMaxTokenExpirationSeconds,
      issue: (input) => signer.sign(tokenClaims(input)),
    },
    authenticator: (lookup, onFailure) => new ServiceAccountAuthenticator({ issuers, keys: verificationKeys, audiences: apiAudiences, lookup, onFailure }),
  };
}
