/**
 * AuthenticationConfiguration decoding and validation: kube's messages and field paths
 * (k8s.io/apiserver/pkg/apis/apiserver/validation, kube-apiserver's loadAuthenticationConfig).
 */
import { ConfigFileError, loadConfig } from '../../../../src/config/versioned-config';
import { authenticationConfigKind, validateAuthenticationConfiguration } from '../../../../src/config/kinds/authentication';

const load = (text: string) => loadConfig({ text, path: '/etc/authn.yaml' }, authenticationConfigKind);
const fails = (text: string): string => {
  try {
    load(text);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigFileError);
    return (e as Error).message;
  }
  throw new Error('loaded');
};

const jwt = (body: string, apiVersion = 'apiserver.config.k8s.io/v1beta1') => `apiVersion: ${apiVersion}
kind: AuthenticationConfiguration
jwt:
${body}`;

const good = `- issuer:
    url: https://issuer.example.com
    audiences: [my-app]
  claimMappings:
    username:
      claim: sub
      prefix: "oidc:"
`;

describe('AuthenticationConfiguration loading', () => {
  it.each(['apiserver.config.k8s.io/v1alpha1', 'apiserver.config.k8s.io/v1beta1', 'apiserver.k8s.io/v1alpha1', 'apiserver.k8s.io/v1beta1'])(
    'loads %s',
    (apiVersion) => {
      const c = load(jwt(good, apiVersion));
      expect(c.jwt).toHaveLength(1);
      expect(c.jwt[0]!.issuer).toEqual({ url: 'https://issuer.example.com', certificateAuthority: '', audiences: ['my-app'], audienceMatchPolicy: '' });
      expect(c.jwt[0]!.claimMappings.username).toEqual({ claim: 'sub', prefix: 'oidc:', expression: '' });
      expect(c.anonymous).toBeUndefined();
    },
  );

  it('refuses an empty file, an unknown version and unknown fields as kube does', () => {
    expect(fails('')).toBe('failed to load authentication configuration from file "/etc/authn.yaml": empty config data');
    expect(fails(jwt(good, 'apiserver.config.k8s.io/v1'))).toBe(
      'failed to load authentication configuration from file "/etc/authn.yaml": no kind "AuthenticationConfiguration" is registered for version "apiserver.config.k8s.io/v1" in scheme "pkg/runtime/scheme.go:100"',
    );
    expect(fails(jwt(good.replace('audiences:', 'audience: x\n    audiences:')))).toBe(
      'failed to load authentication configuration from file "/etc/authn.yaml": strict decoding error: unknown field "jwt[0].issuer.audience"',
    );
    expect(fails(jwt(good.replace('[my-app]', '7')))).toContain('json: cannot unmarshal number into Go struct field Issuer.jwt.issuer.audiences of type []string');
  });

  it('validates the issuer with kube field paths and messages', () => {
    const msg = fails(
      jwt(`- issuer:
    url: http://u:p@issuer.example.com?x=1#f
    discoveryURL: http://u:p@issuer.example.com?x=1#f
    audiences: [a, a, ""]
    audienceMatchPolicy: Exact
  claimMappings:
    username: {claim: sub, prefix: ""}
- issuer:
    url: https://other.example.com
    audiences: []
  claimMappings:
    username: {claim: sub, prefix: ""}
`),
    );
    expect(msg).toContain('invalid authentication configuration in file "/etc/authn.yaml": [');
    expect(msg).toContain('jwt[0].issuer.url: Invalid value: "http://u:p@issuer.example.com?x=1#f": URL scheme must be https');
    expect(msg).toContain('jwt[0].issuer.url: Invalid value: "http://u:p@issuer.example.com?x=1#f": URL must not contain a username or password');
    expect(msg).toContain('jwt[0].issuer.url: Invalid value: "http://u:p@issuer.example.com?x=1#f": URL must not contain a query');
    expect(msg).toContain('jwt[0].issuer.url: Invalid value: "http://u:p@issuer.example.com?x=1#f": URL must not contain a fragment');
    expect(msg).toContain('jwt[0].issuer.discoveryURL: Invalid value: "http://u:p@issuer.example.com?x=1#f": discoveryURL must be different from URL');
    expect(msg).toContain('jwt[0].issuer.audiences[1]: Duplicate value: "a"');
    expect(msg).toContain(`jwt[0].issuer.audiences[2]: Required value: audience can't be empty`);
    expect(msg).toContain('jwt[0].issuer.audienceMatchPolicy: Invalid value: "Exact": audienceMatchPolicy must be MatchAny for multiple audiences');
    expect(msg).toContain('jwt[1].issuer.audiences: Required value: at least one jwt[1].issuer.audiences is required');
  });

  it('refuses a repeated issuer, a bad CA, and a single audience with another policy', () => {
    const one = `- issuer:
    url: https://issuer.example.com
    audiences: [a]
    audienceMatchPolicy: Other
    certificateAuthority: "not a pem"
  claimMappings:
    username: {claim: sub, prefix: ""}
`;
    const msg = fails(jwt(one + one));
    expect(msg).toContain('jwt[1].issuer.url: Duplicate value: "https://issuer.example.com"');
    expect(msg).toContain('jwt[0].issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates');
    expect(msg).toContain('jwt[0].issuer.audienceMatchPolicy: Invalid value: "Other": audienceMatchPolicy must be empty or MatchAny for single audience');
  });

  it('validates claim mappings and rules', () => {
    const msg = fails(
      jwt(`- issuer:
    url: https://issuer.example.com
    audiences: [a]
  claimValidationRules:
  - claim: hd
    requiredValue: example.com
    message: nope
  - claim: hd
    requiredValue: x
  - {}
  - expression: "claims.x"
    requiredValue: y
  claimMappings:
    username:
      claim: sub
    groups:
      claim: groups
      expression: claims.groups
    uid:
      claim: sub
      expression: claims.sub
    extra:
    - key: Example.com/Foo
      valueExpression: claims.foo
    - key: kubernetes.io/foo
      valueExpression: claims.foo
    - key: nodomain
      valueExpression: claims.foo
    - key: example.com/bar
  userValidationRules:
  - {}
`),
    );
    for (const want of [
      `jwt[0].claimValidationRules[0].message: Invalid value: "nope": message can't be set when claim is set`,
      'jwt[0].claimValidationRules[1].claim: Duplicate value: "hd"',
      'jwt[0].claimValidationRules[2]: Required value: claim or expression is required',
      `jwt[0].claimValidationRules[3].requiredValue: Invalid value: "y": requiredValue can't be set when expression is set`,
      'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
      `jwt[0].claimMappings.groups: Invalid value: "": claim and expression can't both be set`,
      `jwt[0].claimMappings.uid: Invalid value: "": claim and expression can't both be set`,
      'jwt[0].claimMappings.extra[0].key: Invalid value: "Example.com/Foo": key must be lowercase',
      'jwt[0].claimMappings.extra[1].key: Invalid value: "kubernetes.io/foo": k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use',
      'jwt[0].claimMappings.extra[2].key: Invalid value: "nodomain": must be a domain-prefixed path (such as "acme.io/foo")',
      'jwt[0].claimMappings.extra[3].valueExpression: Required value: valueExpression is required',
      'jwt[0].userValidationRules[0].expression: Required value: expression is required',
    ]) {
      expect(msg).toContain(want);
    }
  });

  it('compiles CEL at load: a syntax error or an undeclared variable names the field', () => {
    const msg = fails(
      jwt(`- issuer:
    url: https://issuer.example.com
    audiences: [a]
  claimMappings:
    username:
      expression: "claims.sub +"
    groups:
      expression: "user.groups"
  userValidationRules:
  - expression: "claims.sub == 'x'"
`),
    );
    expect(msg).toContain('jwt[0].claimMappings.username.expression: Invalid value: "claims.sub +": compilation failed: ERROR: <input>:1:13:');
    expect(msg).toContain(`jwt[0].claimMappings.groups.expression: Invalid value: "user.groups": compilation failed: ERROR: <input>:1:1: undeclared reference to 'user'`);
    expect(msg).toContain(`jwt[0].userValidationRules[0].expression: Invalid value: "claims.sub == 'x'": compilation failed: ERROR: <input>:1:1: undeclared reference to 'claims'`);
  });

  it('wants claims.email_verified wherever claims.email names the user (kube documentation example passes)', () => {
    const base = (rules: string) =>
      jwt(`- issuer:
    url: https://issuer.example.com
    audiences: [a]
${rules}  claimMappings:
    username:
      expression: "claims.email"
`);
    expect(fails(base(''))).toContain(
      'jwt[0].claimMappings.username.expression: Invalid value: "claims.email": claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression',
    );
    const c = load(base(`  claimValidationRules:
  - expression: "claims.email_verified == true"
    message: email must be verified
`));
    expect(c.jwt[0]!.claimMappings.username.compiled?.expression).toBe('claims.email');
  });

  it('anonymous: conditions need enabled', () => {
    const msg = fails(`apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
anonymous:
  enabled: false
  conditions:
  - path: /livez
`);
    expect(msg).toBe(
      'invalid authentication configuration in file "/etc/authn.yaml": anonymous.conditions: Invalid value: []apiserver.AnonymousAuthCondition{apiserver.AnonymousAuthCondition{Path:"/livez"}}: enabled should be set to true when conditions are defined',
    );
    expect(
      load(`apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
anonymous: {enabled: true, conditions: [{path: /livez}]}
`).anonymous,
    ).toEqual({ enabled: true, conditions: [{ path: '/livez' }] });
  });

  it("refuses an issuer the service accounts own (kube's disallowedIssuers)", () => {
    const c = load(jwt(good));
    expect(validateAuthenticationConfiguration(c, { disallowedIssuers: ['https://kubernetes.default.svc', 'https://issuer.example.com'] })).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'jwt[0].issuer.url',
        badValue: 'https://issuer.example.com',
        detail: 'URL must not overlap with disallowed issuers: [https://issuer.example.com https://kubernetes.default.svc]',
      },
    ]);
  });
});
