/**
 * AuthenticationConfiguration (`--authentication-config`), as kube-apiserver 1.32 loads it:
 * `apiserver.config.k8s.io/v1alpha1` and `/v1beta1` (and the `apiserver.k8s.io` spellings of seed
 * 002), decoded strictly, converted to api/authentication-config.ts, validated as
 * k8s.io/apiserver/pkg/apis/apiserver/validation does (messages and field paths), CEL expressions
 * compiled on the way (api/cel.ts). kube's wording of a failure: `failed to load authentication
 * configuration from file "<path>": <decode error>`; validation: `invalid authentication
 * configuration: <aggregate>` (here with ` in file "<path>"` added, so a start names the file).
 */
import { X509Certificate } from 'node:crypto';
import { FieldError, FieldPath, fieldErrors, isDNS1123Subdomain } from '../../api';
import type { AuthenticationConfiguration, JWTAuthenticatorConfig, PrefixedClaimOrExpression } from '../../api/authentication-config';
import { CelCompileError, compileCel, type CelVariable, type CompiledCel } from '../../api/cel';
import { splitPemCertificates } from '../../api/der';
import { configVersion, defineConfigKind, s, type ConfigKind, type ConfigProblem, type Decoded } from '../versioned-config';

const prefixed = s.struct('v1beta1.PrefixedClaimOrExpression', {
  claim: s.string(),
  prefix: s.ptr(s.string()),
  expression: s.string(),
});
const claimOrExpression = s.struct('v1beta1.ClaimOrExpression', { claim: s.string(), expression: s.string() });

const jwtAuthenticator = s.struct('v1beta1.JWTAuthenticator', {
  issuer: s.struct('v1beta1.Issuer', {
    url: s.string(),
    discoveryURL: s.ptr(s.string()),
    certificateAuthority: s.string(),
    audiences: s.list(s.string()),
    audienceMatchPolicy: s.string('v1beta1.AudienceMatchPolicyType'),
  }),
  claimValidationRules: s.list(
    s.struct('v1beta1.ClaimValidationRule', { claim: s.string(), requiredValue: s.string(), expression: s.string(), message: s.string() }),
  ),
  claimMappings: s.struct('v1beta1.ClaimMappings', {
    username: prefixed,
    groups: prefixed,
    uid: claimOrExpression,
    extra: s.list(s.struct('v1beta1.ExtraMapping', { key: s.string(), valueExpression: s.string() })),
  }),
  userValidationRules: s.list(s.struct('v1beta1.UserValidationRule', { expression: s.string(), message: s.string() })),
});

const versioned = s.struct('v1beta1.AuthenticationConfiguration', {
  jwt: s.list(jwtAuthenticator),
  anonymous: s.ptr(
    s.struct('v1beta1.AnonymousAuthConfig', {
      enabled: s.bool(),
      conditions: s.list(s.struct('v1beta1.AnonymousAuthCondition', { path: s.string() })),
    }),
  ),
});
type Versioned = Decoded<typeof versioned>;

const toPrefixed = (p: Decoded<typeof prefixed>): PrefixedClaimOrExpression => ({
  claim: p.claim,
  expression: p.expression,
  ...(p.prefix !== undefined ? { prefix: p.prefix } : {}),
});

function toInternal(v: Versioned): AuthenticationConfiguration {
  return {
    jwt: (v.jwt ?? []).map(
      (j): JWTAuthenticatorConfig => ({
        issuer: {
          url: j.issuer.url,
          ...(j.issuer.discoveryURL !== undefined ? { discoveryURL: j.issuer.discoveryURL } : {}),
          certificateAuthority: j.issuer.certificateAuthority,
          audiences: j.issuer.audiences ?? [],
          audienceMatchPolicy: j.issuer.audienceMatchPolicy,
        },
        claimValidationRules: (j.claimValidationRules ?? []).map((r) => ({ ...r })),
        claimMappings: {
          username: toPrefixed(j.claimMappings.username),
          groups: toPrefixed(j.claimMappings.groups),
          uid: { ...j.claimMappings.uid },
          extra: (j.claimMappings.extra ?? []).map((e) => ({ ...e })),
        },
        userValidationRules: (j.userValidationRules ?? []).map((r) => ({ ...r })),
      }),
    ),
    ...(v.anonymous ? { anonymous: { enabled: v.anonymous.enabled, conditions: (v.anonymous.conditions ?? []).map((c) => ({ ...c })) } } : {}),
  };
}

const version = configVersion(versioned, { toInternal });

/**
 * The kind validated with `opts` (the server's service-account issuers, its gates), so a file is
 * checked, and its expressions compiled, once.
 */
export function authenticationConfigKindFor(opts: AuthenticationValidationOptions): ConfigKind<AuthenticationConfiguration> {
  return defineConfigKind<AuthenticationConfiguration>({ ...kindSpec, validate: (c) => validateAuthenticationConfiguration(c, opts) });
}

const kindSpec = {
  group: 'apiserver.config.k8s.io',
  kind: 'AuthenticationConfiguration',
  versions: {
    v1alpha1: version,
    v1beta1: version,
    // Seed 002 names the kind's group apiserver.k8s.io: both spellings load.
    'apiserver.k8s.io/v1alpha1': version,
    'apiserver.k8s.io/v1beta1': version,
  },
  scheme: 'pkg/runtime/scheme.go:100',
  internalType: '*apiserver.AuthenticationConfiguration',
  emptyFile: { error: 'empty config data' },
  fileError: (p: ConfigProblem) =>
    p.stage === 'validate'
      ? `invalid authentication configuration${p.path === undefined ? '' : ` in file "${p.path}"`}: ${p.detail}`
      : `failed to load authentication configuration${p.path === undefined ? '' : ` from file "${p.path}"`}: ${p.detail}`,
};

/** The kind with no server options (what validation alone checks). */
export const authenticationConfigKind = authenticationConfigKindFor({});

// ---- Validation (pkg/apis/apiserver/validation) ----

export interface AuthenticationValidationOptions {
  /** The service-account issuers (`--service-account-issuer`): a JWT issuer may not be one. */
  disallowedIssuers?: readonly string[];
  /** Gate AnonymousAuthConfigurableEndpoints (on in 1.32). */
  anonymousConfigurable?: boolean;
}

export function validateAuthenticationConfiguration(c: AuthenticationConfiguration, opts: AuthenticationValidationOptions = {}): FieldError[] {
  const root = FieldPath.root('jwt');
  const errs: FieldError[] = [];
  if (c.jwt.length > 64) return [fieldErrors.tooMany(root, c.jwt.length, 64)];
  const seenIssuers = new Set<string>();
  const seenDiscovery = new Set<string>();
  const disallowed = [...new Set(opts.disallowedIssuers ?? [])].sort();
  c.jwt.forEach((a, i) => {
    const p = root.index(i);
    errs.push(...validateJWTAuthenticator(a, p, disallowed));
    if (seenIssuers.has(a.issuer.url)) errs.push(fieldErrors.duplicate(p.child('issuer').child('url'), a.issuer.url));
    seenIssuers.add(a.issuer.url);
    const d = a.issuer.discoveryURL;
    if (d) {
      if (seenDiscovery.has(d)) errs.push(fieldErrors.duplicate(p.child('issuer').child('discoveryURL'), d));
      seenDiscovery.add(d);
    }
  });
  if (c.anonymous) {
    if (opts.anonymousConfigurable === false) {
      errs.push(fieldErrors.forbidden('anonymous', 'anonymous is not supported when AnonymousAuthConfigurableEnpoints feature gate is disabled'));
    }
    if (!c.anonymous.enabled && c.anonymous.conditions.length > 0) {
      errs.push({
        type: 'FieldValueInvalid',
        field: 'anonymous.conditions',
        badValueText: `[]apiserver.AnonymousAuthCondition{${c.anonymous.conditions.map((x) => `apiserver.AnonymousAuthCondition{Path:${JSON.stringify(x.path)}}`).join(', ')}}`,
        detail: 'enabled should be set to true when conditions are defined',
      });
    }
  }
  return errs;
}

/** kube's validateJWTAuthenticator (the feature gate StructuredAuthenticationConfiguration on). */
function validateJWTAuthenticator(a: JWTAuthenticatorConfig, p: FieldPath, disallowed: string[]): FieldError[] {
  const state = { usesEmailClaim: false, usesEmailVerifiedClaim: false };
  return [
    ...validateIssuer(a, p.child('issuer'), disallowed),
    ...validateClaimValidationRules(a, p.child('claimValidationRules'), state),
    ...validateClaimMappings(a, p.child('claimMappings'), state),
    ...validateUserValidationRules(a, p.child('userValidationRules')),
  ];
}

function validateIssuer(a: JWTAuthenticatorConfig, p: FieldPath, disallowed: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const { url, discoveryURL, audiences, audienceMatchPolicy, certificateAuthority } = a.issuer;
  if (url === '') errs.push(fieldErrors.required(p.child('url'), 'URL is required'));
  else errs.push(...validateURL(url, disallowed, p.child('url')));
  if (discoveryURL) {
    const dp = p.child('discoveryURL');
    if (url !== '' && url.replace(/\/+$/, '') === discoveryURL.replace(/\/+$/, '')) {
      errs.push(fieldErrors.invalid(dp, discoveryURL, 'discoveryURL must be different from URL'));
    }
    errs.push(...validateURL(discoveryURL, [], dp));
  }
  const ap = p.child('audiences');
  const mp = p.child('audienceMatchPolicy');
  if (audiences.length === 0) {
    errs.push(fieldErrors.required(ap, `at least one ${ap} is required`));
  } else {
    const seen = new Set<string>();
    audiences.forEach((aud, i) => {
      if (aud === '') errs.push(fieldErrors.required(ap.index(i), "audience can't be empty"));
      if (seen.has(aud)) errs.push(fieldErrors.duplicate(ap.index(i), aud));
      seen.add(aud);
    });
    if (audiences.length > 1 && audienceMatchPolicy !== 'MatchAny') {
      errs.push(fieldErrors.invalid(mp, audienceMatchPolicy, 'audienceMatchPolicy must be MatchAny for multiple audiences'));
    }
    if (audiences.length === 1 && audienceMatchPolicy !== '' && audienceMatchPolicy !== 'MatchAny') {
      errs.push(fieldErrors.invalid(mp, audienceMatchPolicy, 'audienceMatchPolicy must be empty or MatchAny for single audience'));
    }
  }
  if (certificateAuthority !== '' && !pemCertificates(certificateAuthority)) {
    errs.push(fieldErrors.invalid(p.child('certificateAuthority'), '<omitted>', 'data does not contain any valid RSA or ECDSA certificates'));
  }
  return errs;
}

/** The certificates of a PEM bundle (client-go's cert.ParseCertsPEM), or undefined when none parse. */
function pemCertificates(pem: string): string[] | undefined {
  const out: string[] = [];
  for (const b of splitPemCertificates(pem)) {
    try {
      new X509Certificate(b);
      out.push(b);
    } catch {
      return undefined;
    }
  }
  return out.length ? out : undefined;
}

/** kube's validateURL over Go's url.Parse: https only, no user info, query or fragment. */
function validateURL(u: string, disallowed: string[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (disallowed.includes(u)) {
    errs.push(fieldErrors.invalid(p, u, `URL must not overlap with disallowed issuers: [${disallowed.join(' ')}]`));
  }
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(u);
  const scheme = m ? (m[1] as string).toLowerCase() : '';
  let rest = m ? u.slice(m[0].length) : u;
  const hash = rest.indexOf('#');
  const fragment = hash >= 0 ? rest.slice(hash + 1) : '';
  if (hash >= 0) rest = rest.slice(0, hash);
  const q = rest.indexOf('?');
  const query = q >= 0 ? rest.slice(q + 1) : '';
  if (q >= 0) rest = rest.slice(0, q);
  const authority = rest.startsWith('//') ? (rest.slice(2).split('/')[0] as string) : '';
  if (scheme !== 'https') errs.push(fieldErrors.invalid(p, u, 'URL scheme must be https'));
  if (authority.includes('@')) errs.push(fieldErrors.invalid(p, u, 'URL must not contain a username or password'));
  if (query !== '') errs.push(fieldErrors.invalid(p, u, 'URL must not contain a query'));
  if (fragment !== '') errs.push(fieldErrors.invalid(p, u, 'URL must not contain a fragment'));
  return errs;
}

/**
 * Compiles into `target.compiled`; a compile error is kube's `Invalid value: "<expr>": compilation
 * failed: …`, a validation rule that is not a bool `Invalid value: "<expr>": must evaluate to bool`
 * (kube's ReturnTypes: bool for the rules, anything for the mappings), a program cel-go cannot
 * make (a literal find pattern that does not compile) `Internal error: program instantiation …`.
 */
function compileInto(target: { compiled?: CompiledCel }, expression: string, variable: CelVariable, p: FieldPath, resultTypes?: readonly string[]): FieldError | undefined {
  try {
    target.compiled = compileCel(expression, variable, resultTypes ? { resultTypes } : {});
    return undefined;
  } catch (e) {
    if (e instanceof CelCompileError) return e.fieldError(p, expression);
    throw e;
  }
}

type EmailState = { usesEmailClaim: boolean; usesEmailVerifiedClaim: boolean };

function validateClaimValidationRules(a: JWTAuthenticatorConfig, p: FieldPath, state: EmailState): FieldError[] {
  const errs: FieldError[] = [];
  const seenClaims = new Set<string>();
  const seenExpressions = new Set<string>();
  a.claimValidationRules.forEach((rule, i) => {
    const rp = p.index(i);
    if (rule.claim !== '' && rule.expression !== '') errs.push(fieldErrors.invalid(rp, rule.claim, "claim and expression can't both be set"));
    else if (rule.claim === '' && rule.expression === '') errs.push(fieldErrors.required(rp, 'claim or expression is required'));
    else if (rule.claim !== '') {
      if (rule.message !== '') errs.push(fieldErrors.invalid(rp.child('message'), rule.message, "message can't be set when claim is set"));
      if (seenClaims.has(rule.claim)) errs.push(fieldErrors.duplicate(rp.child('claim'), rule.claim));
      seenClaims.add(rule.claim);
    } else {
      if (rule.requiredValue !== '') errs.push(fieldErrors.invalid(rp.child('requiredValue'), rule.requiredValue, "requiredValue can't be set when expression is set"));
      if (seenExpressions.has(rule.expression)) {
        errs.push(fieldErrors.duplicate(rp.child('expression'), rule.expression));
        return;
      }
      seenExpressions.add(rule.expression);
      const err = compileInto(rule, rule.expression, 'claims', rp.child('expression'), ['bool']);
      if (err) errs.push(err);
      else if (rule.compiled?.selects('email_verified')) state.usesEmailVerifiedClaim = true;
    }
  });
  return errs;
}

function validatePrefixed(m: PrefixedClaimOrExpression, p: FieldPath, required: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (m.expression !== '' && m.claim !== '') errs.push(fieldErrors.invalid(p, '', "claim and expression can't both be set"));
  else if (m.expression === '' && m.claim === '' && required) errs.push(fieldErrors.required(p, 'claim or expression is required'));
  else if (m.expression !== '') {
    if (m.prefix !== undefined) errs.push(fieldErrors.invalid(p.child('prefix'), m.prefix, "prefix can't be set when expression is set"));
    const err = compileInto(m, m.expression, 'claims', p.child('expression'));
    if (err) errs.push(err);
  } else if (m.claim !== '' && m.prefix === undefined) {
    errs.push(fieldErrors.required(p.child('prefix'), 'prefix is required when claim is set. It can be set to an empty string to disable prefixing'));
  }
  return errs;
}

function validateClaimMappings(a: JWTAuthenticatorConfig, p: FieldPath, state: EmailState): FieldError[] {
  const m = a.claimMappings;
  const errs: FieldError[] = [];
  errs.push(...validatePrefixed(m.username, p.child('username'), true));
  if (m.username.compiled) {
    if (m.username.compiled.selects('email')) state.usesEmailClaim = true;
    if (m.username.compiled.selects('email_verified')) state.usesEmailVerifiedClaim = true;
  }
  errs.push(...validatePrefixed(m.groups, p.child('groups'), false));
  if (m.uid.claim !== '' && m.uid.expression !== '') errs.push(fieldErrors.invalid(p.child('uid'), '', "claim and expression can't both be set"));
  else if (m.uid.expression !== '') {
    const err = compileInto(m.uid, m.uid.expression, 'claims', p.child('uid').child('expression'));
    if (err) errs.push(err);
  }
  const seenKeys = new Set<string>();
  m.extra.forEach((x, i) => {
    const xp = p.child('extra').index(i);
    const kp = xp.child('key');
    errs.push(...isDomainPrefixedPath(kp, x.key));
    if (x.key !== x.key.toLowerCase()) errs.push(fieldErrors.invalid(kp, x.key, 'key must be lowercase'));
    const slash = x.key.indexOf('/');
    const domain = slash >= 0 ? x.key.slice(0, slash) : '';
    if (/^(.*\.)?(kubernetes\.io|k8s\.io)$/.test(domain)) {
      errs.push(fieldErrors.invalid(kp, x.key, 'k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use'));
    }
    if (seenKeys.has(x.key)) {
      errs.push(fieldErrors.duplicate(kp, x.key));
      return;
    }
    seenKeys.add(x.key);
    if (x.valueExpression === '') {
      errs.push(fieldErrors.required(xp.child('valueExpression'), 'valueExpression is required'));
      return;
    }
    const err = compileInto(x, x.valueExpression, 'claims', xp.child('valueExpression'));
    if (err) errs.push(err);
    else if (x.compiled?.selects('email_verified')) state.usesEmailVerifiedClaim = true;
  });
  if (state.usesEmailClaim && !state.usesEmailVerifiedClaim) {
    errs.push(
      fieldErrors.invalid(
        p.child('username').child('expression'),
        m.username.expression,
        'claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
      ),
    );
  }
  return errs;
}

/** apimachinery's IsDomainPrefixedPath. */
function isDomainPrefixedPath(p: FieldPath, v: string): FieldError[] {
  if (v === '') return [fieldErrors.required(p, '')];
  const slash = v.indexOf('/');
  if (slash <= 0 || slash === v.length - 1) return [fieldErrors.invalid(p, v, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const host = v.slice(0, slash);
  const path = v.slice(slash + 1);
  const errs = isDNS1123Subdomain(host).map((msg) => fieldErrors.invalid(p, host, msg));
  if (!/^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(path)) {
    errs.push(fieldErrors.invalid(p, path, "Invalid path: a valid HTTP path must consist of alphanumeric characters, '/', '-', '.', '_', '~', '%', '!', '$', '&', ''', '(', ')', '*', '+', ',', ';', '=', ':' (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"));
  }
  return errs;
}

function validateUserValidationRules(a: JWTAuthenticatorConfig, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  a.userValidationRules.forEach((rule, i) => {
    const rp = p.index(i);
    if (rule.expression === '') {
      errs.push(fieldErrors.required(rp.child('expression'), 'expression is required'));
      return;
    }
    if (seen.has(rule.expression)) {
      errs.push(fieldErrors.duplicate(rp.child('expression'), rule.expression));
      return;
    }
    seen.add(rule.expression);
    const err = compileInto(rule, rule.expression, 'user', rp.child('expression'), ['bool']);
    if (err) errs.push(err);
  });
  return errs;
}
