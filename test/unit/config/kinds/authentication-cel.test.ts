/**
 * The authentication configuration's CEL, type-checked at load as kube does (pkg/authentication/cel
 * with kube's declared `claims` and `user` types; the rules must be bools), with kube's
 * documentation examples.
 */
import { ConfigFileError, loadConfig } from '../../../../src/config/versioned-config';
import { authenticationConfigKind } from '../../../../src/config/kinds/authentication';
import { celInput } from '../../../../src/api/cel';

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

const config = (body: string) => `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: https://issuer.example.com
    audiences: [my-app]
${body}`;

describe('kube\'s documentation example loads, and its expressions do what the documentation says', () => {
  const doc = config(`  claimValidationRules:
  - expression: 'claims.hd == "example.com"'
    message: the hd claim must be set to example.com
  - expression: 'claims.?email_verified.orValue(false) == true'
    message: email must be verified
  claimMappings:
    username:
      expression: 'claims.username + ":external-user"'
    groups:
      expression: 'claims.roles.split(",")'
    uid:
      expression: 'claims.sub'
    extra:
    - key: 'example.com/tenant'
      valueExpression: 'claims.tenant'
    - key: 'example.com/scopes'
      valueExpression: '[claims.?scope.orValue(""), "default"]'
    - key: 'example.com/has-email'
      valueExpression: 'has(claims.email) ? "yes" : "no"'
  userValidationRules:
  - expression: "!user.username.startsWith('system:')"
    message: 'username cannot used reserved system: prefix'
  - expression: "user.groups.all(group, !group.startsWith('system:'))"
    message: 'groups cannot used reserved system: prefix'
`);

  it('loads, every expression compiled', () => {
    const c = load(doc);
    const j = c.jwt[0]!;
    const claims = celInput({ sub: '119abc', username: 'jane', roles: 'admin,dev', hd: 'example.com', email_verified: true, tenant: 't1', email: 'j@example.com' });
    expect(j.claimValidationRules.map((r) => r.compiled!.evaluate(claims))).toEqual([true, true]);
    expect(j.claimMappings.username.compiled!.evaluate(claims)).toBe('jane:external-user');
    expect(j.claimMappings.groups.compiled!.evaluate(claims)).toEqual(['admin', 'dev']);
    expect(j.claimMappings.uid.compiled!.evaluate(claims)).toBe('119abc');
    expect(j.claimMappings.extra.map((x) => x.compiled!.evaluate(claims))).toEqual(['t1', ['', 'default'], 'yes']);
    const user = celInput({ username: 'jane:external-user', uid: '119abc', groups: ['admin', 'dev'], extra: {} });
    expect(j.userValidationRules.map((r) => r.compiled!.evaluate(user))).toEqual([true, true]);
    expect(j.userValidationRules[1]!.compiled!.evaluate(celInput({ username: 'x', groups: ['system:masters'] }))).toBe(false);
  });
});

describe('type errors are refused at load with the field path and kube\'s message', () => {
  it('a validation rule that is not a bool: kube\'s `must evaluate to bool`', () => {
    const msg = fails(
      config(`  claimValidationRules:
  - expression: 'claims.hd'
  claimMappings:
    username:
      claim: sub
      prefix: ''
  userValidationRules:
  - expression: 'user.username'
`),
    );
    expect(msg).toBe(
      'invalid authentication configuration in file "/etc/authn.yaml": [jwt[0].claimValidationRules[0].expression: Invalid value: "claims.hd": must evaluate to bool, ' +
        'jwt[0].userValidationRules[0].expression: Invalid value: "user.username": must evaluate to bool]',
    );
  });

  it('operators and functions over the declared types, unknown fields of user', () => {
    const msg = fails(
      config(`  claimMappings:
    username:
      expression: 'claims + 1'
    groups:
      expression: 'claims.groups.split(1)'
    uid:
      expression: '"a" + 1'
  userValidationRules:
  - expression: "user.unknown == 'foo'"
  - expression: 'user.groups.exists(g, g == 1)'
`),
    );
    for (const want of [
      `jwt[0].claimMappings.username.expression: Invalid value: "claims + 1": compilation failed: ERROR: <input>:1:8: found no matching overload for '_+_' applied to '(map(string, any), int)'\n | claims + 1\n | .......^`,
      `jwt[0].claimMappings.uid.expression: Invalid value: "\\"a\\" + 1": compilation failed: ERROR: <input>:1:5: found no matching overload for '_+_' applied to '(string, int)'`,
      `jwt[0].userValidationRules[0].expression: Invalid value: "user.unknown == 'foo'": compilation failed: ERROR: <input>:1:5: undefined field 'unknown'`,
      `jwt[0].userValidationRules[1].expression: Invalid value: "user.groups.exists(g, g == 1)": compilation failed: ERROR: <input>:1:25: found no matching overload for '_==_' applied to '(string, int)'`,
    ]) {
      expect(msg).toContain(want);
    }
  });

  it("a literal find/findAll pattern that does not compile is kube's InternalError (program instantiation failed)", () => {
    const msg = fails(
      config(`  claimMappings:
    username:
      expression: "claims.sub.find('(')"
`),
    );
    expect(msg).toContain('jwt[0].claimMappings.username.expression: Internal error: program instantiation failed: error parsing regexp: missing closing ): `(`');
    expect(msg).not.toContain('Invalid value');
  });

  it('mappings may be of any type at load (kube checks them when they run)', () => {
    const c = load(
      config(`  claimMappings:
    username:
      expression: 'claims.sub + 1'
    groups:
      expression: '1'
`),
    );
    expect(c.jwt[0]!.claimMappings.username.compiled!.outputType).toBe('int');
    expect(() => c.jwt[0]!.claimMappings.username.compiled!.evaluate(celInput({ sub: 'x' }))).toThrow('no such overload');
  });

  it('the email rule: claims.email needs claims.email_verified somewhere', () => {
    const msg = fails(
      config(`  claimMappings:
    username:
      expression: 'claims.email'
`),
    );
    expect(msg).toContain('claims.email_verified must be used in claimMappings.username.expression');
    expect(() =>
      load(
        config(`  claimValidationRules:
  - expression: 'claims.?email_verified.orValue(true) && claims.email_verified == true'
  claimMappings:
    username:
      expression: 'claims.email'
`),
      ),
    ).not.toThrow();
  });
});
