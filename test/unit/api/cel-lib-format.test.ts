/**
 * api/cel-lib-format.ts: kube's format CEL library (apiserver pkg/cel/library/format.go: its
 * doc examples and format_test.go cases).
 */
import { CelCompileError, compileCel } from '../../../src/api/cel';
import { overClaims } from '../../support/cel';

const { run } = overClaims({ name: 'My_Name', uid: '123e4567-e89b-12d3-a456-426614174000' });

describe('format library (kube\'s examples)', () => {
  it.each<[string, boolean]>([
    ['format.dns1123Label().validate("my-label-name")', true],
    ['format.dns1123Subdomain().validate("apiextensions.k8s.io")', true],
    ['format.dns1035Label().validate("my-label-name")', true],
    ['format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")', true],
    ['format.dns1123LabelPrefix().validate("my-label-prefix-")', true],
    ['format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")', true],
    ['format.dns1035LabelPrefix().validate("my-label-prefix-")', true],
    ['format.uri().validate("http://example.com")', true],
    ['format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', true],
    ['format.uuid().validate("123E4567E89B12D3A456426614174000")', true],
    ['format.byte().validate("aGVsbG8=")', true],
    ['format.date().validate("2021-01-01")', true],
    ['format.datetime().validate("2021-01-01T00:00:00Z")', true],
    ['format.datetime().validate("2021-01-01t23:59:59.123+01:00")', true],
    ['format.labelValue().validate("")', true],
    ['format.dns1123Label().validate("My_Name")', false],
    ['format.dns1035Label().validate("1abc")', false],
    ['format.uri().validate("foo")', false],
    ['format.uuid().validate("not-a-uuid")', false],
    ['format.byte().validate("aGVsbG8")', false],
    ['format.byte().validate("")', false],
    ['format.date().validate("2021-02-29")', false],
    ['format.date().validate("2020-02-29")', true],
    ['format.date().validate("2021-1-01")', false],
    ['format.datetime().validate("2021-01-01T24:00:00Z")', false],
    ['format.datetime().validate("2021-01-01T00:00:00")', false],
  ])('%s is valid: %s', (expression, valid) => {
    expect(run(`!${expression}.hasValue()`)).toBe(valid);
  });

  it('validate gives kube\'s messages; named() finds the formats by name', () => {
    expect(run('format.dns1123Label().validate(claims.name).value()')).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(run('format.uri().validate("foo").value()')).toEqual(['parse "foo": invalid URI for request']);
    expect(run('format.uuid().validate("x").value()')).toEqual(['does not match the UUID format']);
    expect(run('format.byte().validate("x").value()')).toEqual(['invalid base64']);
    expect(run('format.date().validate("x").value()')).toEqual(['invalid date']);
    expect(run('format.datetime().validate("x").value()')).toEqual(['invalid datetime']);
    expect(run('format.named("dns1123Label").hasValue()')).toBe(true);
    expect(run('format.named("nope").hasValue()')).toBe(false);
    expect(run('format.named("uuid").value().validate(claims.uid).hasValue()')).toBe(false);
    expect(run('format.named("dns1123Label").value() == format.dns1123Label()')).toBe(true);
    expect(run('format.named("labelValue").value() == format.dns1123Label()')).toBe(false);
    expect(run('format.named("dns1123Label").value().validate("-").orValue([]).size()')).toBe(1n);
  });

  it.each<[string, string]>([
    // kube's format_test.go.
    ['dns1123Subdomain', "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
    ['dns1035Label', "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"],
    ['qualifiedName', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"],
    ['dns1123LabelPrefix', "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"],
  ])('format.%s() of "contains a space" is kube\'s message', (name, message) => {
    const suffix = name.endsWith('Prefix') ? '-' : '';
    expect(run(`format.${name}().validate("contains a space${suffix}").value()`)).toEqual([message]);
  });

  it('types are checked at compile time, qualified names as cel-go names them', () => {
    expect(compileCel('format.named("x")', 'claims').outputType).toBe('optional_type(kubernetes.NamedFormat)');
    expect(compileCel('format.uuid().validate("x")', 'claims').outputType).toBe('optional_type(list(string))');
    expect(() => compileCel('format.named(1)', 'claims')).toThrow("ERROR: <input>:1:13: found no matching overload for 'format.named' applied to '(int)'");
    expect(() => compileCel('format.uuid().validate(1)', 'claims')).toThrow("found no matching overload for 'validate' applied to 'kubernetes.NamedFormat.(int)'");
    expect(() => compileCel('format', 'claims')).toThrow(new CelCompileError("compilation failed: ERROR: <input>:1:1: undeclared reference to 'format' (in container '')\n | format\n | ^"));
    // The strings extension's format() is another function.
    expect(run('"%s!".format(["a"])')).toBe('a!');
  });
});
