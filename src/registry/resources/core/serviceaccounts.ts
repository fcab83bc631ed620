/**
 * core/v1 ServiceAccount (kubernetes pkg/registry/core/serviceaccount) and its `token` subresource
 * (storage/token.go: a TokenRequest in, the same TokenRequest with status.token out, nothing stored).
 */
import { FieldPath, KubeObject, errors, fieldErrors, goQuote, orderObjectMeta, parseApiVersion } from '../../../api';
import type { RequestContext } from '../../context';
import { ResourceDefinition, SubresourceEnv, allVerbs, baseStrategy } from '../../resource';
import { ageColumn, nameColumn } from './common';

const tokenRequestKind = { group: 'authentication.k8s.io', kind: 'TokenRequest' };

/** kube's SetDefaults_TokenRequestSpec: one hour. */
const defaultExpirationSeconds = 60 * 60;
/** kube's MinTokenAgeSec (ten minutes) and the 2^32 s ceiling of ValidateTokenRequest. */
const minExpirationSeconds = 10 * 60;
const maxExpirationSeconds = 2 ** 32;

interface TokenRequestSpec {
  audiences?: string[] | null;
  expirationSeconds?: number | null;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string } | null;
}

/** kube's TokenREST.Create, in its order. */
async function createToken(ctx: RequestContext, name: string, obj: KubeObject, env: SubresourceEnv): Promise<KubeObject> {
  const namespace = ctx.namespace;
  const req = obj;
  // The body's name and namespace, when given, must be the account's (the namespace was matched already).
  if (req.metadata.name && req.metadata.name !== name) {
    throw errors.invalid(tokenRequestKind, name, [fieldErrors.invalid(FieldPath.root('metadata').child('name'), req.metadata.name, 'must match the service account name if specified')]);
  }
  const account = await env.get(ctx, { group: '', version: 'v1', resource: 'serviceaccounts' }, name);
  if (!account) throw errors.notFound({ group: '', resource: 'serviceaccounts' }, name);
  const issuer = env.settings.serviceAccountTokens;
  if (!issuer) throw errors.serviceUnavailable('service account token issuance is not configured');

  const spec = { ...((req.spec ?? {}) as TokenRequestSpec) };
  if (!spec.audiences || spec.audiences.length === 0) spec.audiences = issuer.apiAudiences;
  spec.expirationSeconds ??= defaultExpirationSeconds;
  const now = ctx.now();
  // Whole seconds, as a Go metav1.Time serialises.
  now.setMilliseconds(0);
  req.metadata = orderObjectMeta({ ...req.metadata, name: req.metadata.name || name, namespace: req.metadata.namespace || namespace, creationTimestamp: now.toISOString().replace('.000Z', 'Z') });

  // kube's ValidateTokenRequest: the TokenRequest is named "" in the error.
  const exp = spec.expirationSeconds;
  const specPath = FieldPath.root('spec');
  const errs = [];
  if (exp < minExpirationSeconds) errs.push(fieldErrors.invalid(specPath.child('expirationSeconds'), exp, 'may not specify a duration less than 10 minutes'));
  if (exp > maxExpirationSeconds) errs.push(fieldErrors.invalid(specPath.child('expirationSeconds'), exp, 'may not specify a duration larger than 2^32 seconds'));
  if (errs.length) throw errors.invalid(tokenRequestKind, '', errs);

  let secret: { name: string; uid: string } | undefined;
  let pod: { name: string; uid: string } | undefined;
  let node: { name: string; uid: string } | undefined;
  // An empty reference is what a client without one sends in protobuf: no binding (kube's nil pointer).
  const ref = spec.boundObjectRef;
  if (ref && (ref.kind || ref.apiVersion || ref.name || ref.uid)) {
    const gv = parseApiVersion(ref.apiVersion ?? '');
    const kind = ref.kind ?? '';
    let uid: string;
    if (gv.group === '' && kind === 'Pod') {
      const found = await env.get(ctx, { group: '', version: 'v1', resource: 'pods' }, ref.name ?? '');
      if (!found) throw errors.notFound({ group: '', resource: 'pods' }, ref.name ?? '');
      const podSpec = (found.spec ?? {}) as { serviceAccountName?: string; nodeName?: string };
      if (podSpec.serviceAccountName !== name) {
        throw errors.badRequest(`cannot bind token for serviceaccount ${goQuote(name)} to pod running with different serviceaccount name.`);
      }
      pod = { name: found.metadata.name ?? '', uid: found.metadata.uid ?? '' };
      uid = pod.uid;
      // kube (ServiceAccountTokenPodNodeInfo, on in 1.32) names the pod's node too, with the Node's
      // uid when it exists; Nodes are not served here, so the name alone, as kube for a missing Node.
      if (podSpec.nodeName) node = { name: podSpec.nodeName, uid: '' };
    } else if (gv.group === '' && kind === 'Secret') {
      const found = await env.get(ctx, { group: '', version: 'v1', resource: 'secrets' }, ref.name ?? '');
      if (!found) throw errors.notFound({ group: '', resource: 'secrets' }, ref.name ?? '');
      secret = { name: found.metadata.name ?? '', uid: found.metadata.uid ?? '' };
      uid = secret.uid;
    } else if (gv.group === '' && kind === 'Node') {
      // A kind kube binds to, but this server serves no Nodes: kube's answer for one that does not exist.
      throw errors.notFound({ group: '', resource: 'nodes' }, ref.name ?? '');
    } else {
      throw errors.badRequest(`cannot bind token to object of type ${gv.group}/${gv.version}, Kind=${kind}`);
    }
    if (ref.uid && ref.uid !== uid) {
      throw errors.conflict(
        { group: '', resource: kind },
        ref.name ?? '',
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
  }
  if (issuer.maxExpirationSeconds > 0 && exp > issuer.maxExpirationSeconds) {
    ctx.warnings.push(`requested expiration of ${exp} seconds shortened to ${issuer.maxExpirationSeconds} seconds`);
    spec.expirationSeconds = issuer.maxExpirationSeconds;
  }
  const token = await issuer.issue({
    namespace,
    serviceAccount: { name: account.metadata.name ?? name, uid: account.metadata.uid ?? '' },
    secret,
    pod,
    node,
    audiences: spec.audiences,
    expirationSeconds: spec.expirationSeconds,
    now,
  });
  const expires = new Date(now.getTime() + spec.expirationSeconds * 1000);
  return { ...req, spec, status: { token, expirationTimestamp: expires.toISOString().replace('.000Z', 'Z') } };
}

export const serviceaccounts: ResourceDefinition = {
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  singularName: 'serviceaccount',
  kind: 'ServiceAccount',
  listKind: 'ServiceAccountList',
  namespaced: true,
  shortNames: ['sa'],
  categories: [],
  verbs: allVerbs,
  subresources: [
    {
      name: 'token',
      verbs: ['create'],
      strategy: baseStrategy,
      answer: {
        group: 'authentication.k8s.io',
        version: 'v1',
        kind: 'TokenRequest',
        schemaName: 'io.k8s.api.authentication.v1.TokenRequest',
        protobufMessage: 'k8s.io.api.authentication.v1.TokenRequest',
        create: createToken,
      },
    },
  ],
  schemaName: 'io.k8s.api.core.v1.ServiceAccount',
  protobufMessage: 'k8s.io.api.core.v1.ServiceAccount',
  // kube's ValidateServiceAccountName: a DNS subdomain; nothing else of the object is checked.
  nameValidation: 'subdomain',
  returnDeletedObject: false,
  strategy: baseStrategy,
  selectableFields: {},
  fieldSelectorError: (label) => `"${label}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
  tableColumns: [
    nameColumn,
    {
      name: 'Secrets',
      type: 'string',
      description: 'Secrets in the same namespace that pods running as this service account may use.',
      cell: (o) => ((o.secrets as unknown[] | undefined) ?? []).length,
    },
    ageColumn,
  ],
};
