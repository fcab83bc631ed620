import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FieldError, FieldPath, fieldErrors } from '../../../src/api';
import {
  ConfigFileError,
  ConfigScheme,
  Decoded,
  configVersion,
  defineConfigKind,
  loadConfig,
  loadConfigFile,
  s,
} from '../../../src/config';

// ---- A toy kind with two versions: v1alpha1 calls `replicas` `size`. ----

interface Toy {
  name: string;
  replicas: number;
  mode: string;
  tags: string[];
  timeoutMs: number;
  labels: Record<string, string>;
  plugin?: unknown;
}

const tuning = s.struct('v1.Tuning', { level: s.int32(), extra: s.any() });

const v1alpha1Shape = s.struct('v1alpha1.ToyConfiguration', {
  name: s.string(),
  spec: s.struct('v1alpha1.ToySpec', {
    size: s.ptr(s.int32()),
    mode: s.string('v1alpha1.Mode'),
    tags: s.list(s.string()),
    timeout: s.duration(),
    labels: s.map(s.string()),
    tuning: s.list(tuning),
    plugin: s.raw(),
  }),
});

const v1Shape = s.struct('v1.ToyConfiguration', {
  name: s.string(),
  spec: s.struct('v1.ToySpec', {
    replicas: s.ptr(s.int32()),
    mode: s.string('v1.Mode'),
    tags: s.list(s.string()),
    timeout: s.duration(),
    labels: s.map(s.string()),
    tuning: s.list(tuning),
    plugin: s.raw(),
  }),
});

type V1 = Decoded<typeof v1Shape>;

const toV1Internal = (v: V1): Toy => ({
  name: v.name,
  replicas: v.spec.replicas ?? 0,
  mode: v.spec.mode,
  tags: v.spec.tags ?? [],
  timeoutMs: v.spec.timeout,
  labels: v.spec.labels ?? {},
  ...(v.spec.plugin === undefined ? {} : { plugin: v.spec.plugin }),
});

const toyKind = defineConfigKind<Toy>({
  group: 'toy.config.k8s.io',
  kind: 'ToyConfiguration',
  scheme: 'pkg/toy/load.go:30',
  versions: {
    v1alpha1: configVersion(v1alpha1Shape, {
      defaults: (v) => {
        v.spec.size ??= 1;
      },
      toInternal: (v) => toV1Internal({ ...v, spec: { ...v.spec, replicas: v.spec.size } }),
    }),
    v1: configVersion(v1Shape, {
      defaults: (v) => {
        v.spec.replicas ??= 3;
        if (v.spec.mode === '') v.spec.mode = 'Fast';
      },
      toInternal: toV1Internal,
    }),
  },
  validate: (c) => {
    const errs: FieldError[] = [];
    const spec = FieldPath.root().child('spec');
    if (c.name === '') errs.push(fieldErrors.required(FieldPath.root().child('name'), ''));
    if (c.replicas < 1) errs.push(fieldErrors.invalid(spec.child('replicas'), c.replicas, 'must be positive'));
    if (!['Fast', 'Slow'].includes(c.mode)) errs.push(fieldErrors.notSupported(spec.child('mode'), c.mode, ['Fast', 'Slow']));
    c.tags.forEach((t, i) => {
      if (t === '') errs.push(fieldErrors.required(spec.child('tags').index(i), ''));
    });
    return errs;
  },
});

const load = (text: string) => loadConfig({ text }, toyKind);
const failure = (text: string, kind = toyKind, opts = {}): ConfigFileError => {
  try {
    loadConfig({ text, path: '/etc/toy.yaml' }, kind, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigFileError);
    return e as ConfigFileError;
  }
  throw new Error('expected a failure');
};
const detail = (text: string): string => failure(text).problem.detail;

const v1Yaml = `apiVersion: toy.config.k8s.io/v1
kind: ToyConfiguration
name: demo
spec:
  replicas: 2
  mode: Slow
  tags: [a, b]
  timeout: 1m30s
  labels:
    team: x
`;

describe('versions and conversion', () => {
  it('decodes v1 YAML into the internal form', () => {
    expect(load(v1Yaml)).toEqual({ name: 'demo', replicas: 2, mode: 'Slow', tags: ['a', 'b'], timeoutMs: 90_000, labels: { team: 'x' } });
  });

  it('decodes v1alpha1 (old field name) into the same internal form', () => {
    const alpha = v1Yaml.replace('/v1\n', '/v1alpha1\n').replace('replicas: 2', 'size: 2');
    expect(load(alpha)).toEqual(load(v1Yaml));
  });

  it('decodes JSON the same as YAML', () => {
    const json = JSON.stringify({
      apiVersion: 'toy.config.k8s.io/v1',
      kind: 'ToyConfiguration',
      name: 'demo',
      spec: { replicas: 2, mode: 'Slow', tags: ['a', 'b'], timeout: '1m30s', labels: { team: 'x' } },
    });
    expect(load(`\n  ${json}`)).toEqual(load(v1Yaml));
  });

  it('keeps raw fields as they are, unchecked', () => {
    const c = load(`${v1Yaml}  plugin: {anything: [1, {goes: true}], anything2: null}\n`);
    expect(c.plugin).toEqual({ anything: [1, { goes: true }], anything2: null });
  });
});

describe('defaulting', () => {
  it('applies each version’s defaults before conversion', () => {
    const v1 = load('apiVersion: toy.config.k8s.io/v1\nkind: ToyConfiguration\nname: d\nspec: {}\n');
    expect(v1).toMatchObject({ replicas: 3, mode: 'Fast', tags: [], timeoutMs: 0 });
    const alpha = load('apiVersion: toy.config.k8s.io/v1alpha1\nkind: ToyConfiguration\nname: d\nspec: {mode: Fast}\n');
    expect(alpha.replicas).toBe(1);
  });

  it('does not default what the file sets (pointer fields tell unset from zero)', () => {
    const e = failure('apiVersion: toy.config.k8s.io/v1\nkind: ToyConfiguration\nname: d\nspec: {replicas: 0}\n');
    expect(e.problem.detail).toBe('spec.replicas: Invalid value: 0: must be positive');
  });

  it('null clears a pointer (then defaulted) and leaves a value field at its zero', () => {
    const c = load('apiVersion: toy.config.k8s.io/v1\nkind: ToyConfiguration\nname: d\nspec: {replicas: null, mode: null, tags: null}\n');
    expect(c).toMatchObject({ replicas: 3, mode: 'Fast', tags: [] });
  });
});

describe('apiVersion and kind', () => {
  it('reports a missing kind or apiVersion with the whole text, as kube does', () => {
    expect(detail('name: x\n')).toBe(`Object 'Kind' is missing in 'name: x\n'`);
    expect(detail('kind: ToyConfiguration\n')).toBe(`Object 'apiVersion' is missing in 'kind: ToyConfiguration\n'`);
    expect(detail('{"kind":"ToyConfiguration","apiVersion":"toy.config.k8s.io/"}')).toBe(
      `Object 'apiVersion' is missing in '{"kind":"ToyConfiguration","apiVersion":"toy.config.k8s.io/"}'`,
    );
    expect(detail('# only a comment\n')).toBe(`Object 'Kind' is missing in '# only a comment\n'`);
    expect(detail('')).toBe(`Object 'Kind' is missing in ''`);
  });

  it('reports an unknown version or kind with the scheme name', () => {
    expect(detail('apiVersion: toy.config.k8s.io/v2\nkind: ToyConfiguration\n')).toBe(
      'no kind "ToyConfiguration" is registered for version "toy.config.k8s.io/v2" in scheme "pkg/toy/load.go:30"',
    );
    expect(detail('apiVersion: toy.config.k8s.io/v1\nkind: Toy\n')).toBe(
      'no kind "Toy" is registered for version "toy.config.k8s.io/v1" in scheme "pkg/toy/load.go:30"',
    );
    expect(detail('apiVersion: a/b/c\nkind: Toy\n')).toBe('unexpected GroupVersion string: a/b/c');
  });

  it('reports a kind or apiVersion that is not a string as encoding/json does', () => {
    expect(detail('{"apiVersion": "toy.config.k8s.io/v1", "kind": 5}')).toBe(
      "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string",
    );
    expect(detail('[1, 2]')).toBe(
      `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  });

  it('refuses a kind of the same scheme that is not the one expected', () => {
    const other = defineConfigKind<{ x: string }>({
      group: 'toy.config.k8s.io',
      kind: 'OtherConfiguration',
      versions: { v1: configVersion(s.struct('v1.OtherConfiguration', { x: s.string() }), { toInternal: (v) => ({ x: v.x }) }) },
    });
    const scheme = new ConfigScheme('pkg/toy/load.go:30', [toyKind, other]);
    const e = failure('apiVersion: toy.config.k8s.io/v1\nkind: OtherConfiguration\nx: y\n', toyKind, { scheme });
    expect(e.problem.detail).toBe('expected ToyConfiguration, got *toy.OtherConfiguration');
    expect(scheme.decode('apiVersion: toy.config.k8s.io/v1\nkind: OtherConfiguration\nx: y\n')).toMatchObject({
      apiVersion: 'toy.config.k8s.io/v1',
      config: { x: 'y' },
    });
  });
});

describe('strict decoding', () => {
  const head = '"apiVersion":"toy.config.k8s.io/v1","kind":"ToyConfiguration","name":"n"';

  it('names an unknown field by its path', () => {
    expect(detail(`{${head},"spec":{"foo":1,"replicas":2}}`)).toBe('strict decoding error: unknown field "spec.foo"');
    expect(detail(`{${head},"spec":{"tuning":[{"level":1},{"level":2,"bogus":{"deep":1}}]}}`)).toBe(
      'strict decoding error: unknown field "spec.tuning[1].bogus"',
    );
    expect(detail(`${v1Yaml}  foo: 1\nbar: 2\n`)).toBe('strict decoding error: unknown field "bar", unknown field "spec.foo"');
  });

  it('names every duplicate field of a JSON file by its path, in document order with unknown fields', () => {
    expect(detail(`{${head},"spec":{"replicas":2,"zzz":1,"replicas":3,"labels":{"a":"1","a":"2"}},"name":"m"}`)).toBe(
      'strict decoding error: unknown field "spec.zzz", duplicate field "spec.replicas", duplicate field "spec.labels.a", duplicate field "name"',
    );
    // inside interface{} values too, but not inside unknown or raw fields
    expect(detail(`{${head},"spec":{"tuning":[{"extra":{"k":1,"k":2}}],"plugin":{"p":1,"p":2},"nope":{"q":1,"q":2}}}`)).toBe(
      'strict decoding error: duplicate field "spec.tuning[0].extra.k", unknown field "spec.nope"',
    );
  });

  it('reports a YAML file’s repeated keys in go-yaml’s words, before the unknown fields', () => {
    const yaml = `apiVersion: toy.config.k8s.io/v1
kind: ToyConfiguration
name: n
spec:
  replicas: 2
  foo: 1
  replicas:
    3
name: m
`;
    expect(detail(yaml)).toBe(
      'strict decoding error: yaml: unmarshal errors:\n  line 8: key "replicas" already set in map\n  line 9: key "name" already set in map, unknown field "spec.foo"',
    );
  });

  it('gives Go’s type error, which wins over strict errors', () => {
    expect(detail(`{${head},"foo":1,"spec":{"replicas":"2"}}`)).toBe(
      'json: cannot unmarshal string into Go struct field ToySpec.spec.replicas of type int32',
    );
    expect(detail(`{${head},"spec":{"replicas":1.5}}`)).toBe('json: cannot unmarshal number 1.5 into Go struct field ToySpec.spec.replicas of type int32');
    expect(detail(`{${head},"spec":{"tuning":[{"level":true}]}}`)).toBe('json: cannot unmarshal bool into Go struct field Tuning.spec.tuning.level of type int32');
    expect(detail(`{${head},"spec":{"labels":{"a":1}}}`)).toBe('json: cannot unmarshal number into Go struct field ToySpec.spec.labels of type string');
    expect(detail(`{${head},"spec":{"tags":"a"}}`)).toBe('json: cannot unmarshal string into Go struct field ToySpec.spec.tags of type []string');
    expect(detail(`{${head},"spec":{"replicas":4294967296}}`)).toBe(
      'json: cannot unmarshal number 4294967296 into Go struct field ToySpec.spec.replicas of type int32',
    );
  });

  it('stops at an error of a field’s own decoder (metav1.Duration)', () => {
    expect(detail(`{${head},"spec":{"timeout":"soon","foo":1}}`)).toBe('time: invalid duration "soon"');
    expect(detail(`{${head},"spec":{"timeout":null}}`)).toBe('time: invalid duration ""');
  });

  it('passes unknown and repeated fields for a kind that is not strict', () => {
    const lax = defineConfigKind<Toy>({ ...toyKind, versions: { v1: toyKind.versions.get('toy.config.k8s.io/v1')! }, strict: false });
    expect(loadConfig({ text: `${v1Yaml}  foo: 1\n  mode: Fast\n` }, lax)).toMatchObject({ mode: 'Fast', replicas: 2 });
  });
});

describe('syntax errors', () => {
  it('words JSON errors as Go’s scanner and YAML errors as go-yaml', () => {
    expect(detail('{"apiVersion": }')).toBe("couldn't get version/kind; json parse error: invalid character '}' looking for beginning of value");
    expect(detail('a: b: c\n')).toMatch(/^yaml: /);
    expect(detail('a: 1\nb: [\n')).toMatch(/^yaml: line \d+: /);
  });

  it('reads the first YAML document only, with anchors and merge keys', () => {
    const yaml = `apiVersion: toy.config.k8s.io/v1\nkind: ToyConfiguration\nname: n\nbase: &b {replicas: 4}\n---\nnot: [yaml\n`;
    expect(detail(yaml)).toBe('strict decoding error: unknown field "base"');
    const merged = `apiVersion: toy.config.k8s.io/v1\nkind: ToyConfiguration\nname: &n demo\nspec:\n  <<: {replicas: 4}\n  tags: [*n]\n`;
    expect(load(merged)).toMatchObject({ replicas: 4, tags: ['demo'] });
  });
});

describe('validation', () => {
  it('aggregates field errors with kube’s paths and wording', () => {
    const e = failure('apiVersion: toy.config.k8s.io/v1\nkind: ToyConfiguration\nspec: {replicas: -1, mode: Medium, tags: [a, ""]}\n');
    expect(e.problem.stage).toBe('validate');
    expect(e.problem.fieldErrors).toHaveLength(4);
    expect(e.message).toBe(
      'invalid ToyConfiguration in file "/etc/toy.yaml": [name: Required value, spec.replicas: Invalid value: -1: must be positive, ' +
        'spec.mode: Unsupported value: "Medium": supported values: "Fast", "Slow", spec.tags[1]: Required value]',
    );
  });
});

describe('files and messages', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'versioned-config-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads a file by path, synchronously and asynchronously', async () => {
    const file = path.join(dir, 'toy.yaml');
    fs.writeFileSync(file, v1Yaml);
    expect(loadConfig({ path: file }, toyKind)).toEqual(load(v1Yaml));
    await expect(loadConfigFile(file, toyKind)).resolves.toEqual(load(v1Yaml));
  });

  it('names the file in every message', async () => {
    const missing = path.join(dir, 'missing.yaml');
    expect(() => loadConfig({ path: missing }, toyKind)).toThrow(
      `failed to load ToyConfiguration from file "${missing}": open ${missing}: no such file or directory`,
    );
    await expect(loadConfigFile(dir, toyKind)).rejects.toThrow(`failed to load ToyConfiguration from file "${dir}": read ${dir}: is a directory`);
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, `${v1Yaml}  foo: 1\n`);
    expect(() => loadConfig({ path: bad }, toyKind)).toThrow(`failed to load ToyConfiguration from file "${bad}": strict decoding error: unknown field "spec.foo"`);
    expect(() => loadConfig({ text: 'kind: X\n' }, toyKind)).toThrow(`failed to load ToyConfiguration: Object 'apiVersion' is missing in 'kind: X\n'`);
  });

  it('lets a kind word its messages and empty files as its kube flag does', () => {
    const authnLike = defineConfigKind<Toy>({
      ...toyKind,
      versions: Object.fromEntries([...toyKind.versions].map(([av, v]) => [av, v])),
      emptyFile: { error: 'empty config data' },
      fileError: (p) => p.detail,
    });
    expect(failure('', authnLike).message).toBe('empty config data');
    const authzLike = defineConfigKind<Toy>({
      ...toyKind,
      versions: Object.fromEntries([...toyKind.versions].map(([av, v]) => [av, v])),
      emptyFile: { version: 'v1' },
      validate: undefined,
    });
    expect(loadConfig({ text: '' }, authzLike)).toEqual({ name: '', replicas: 3, mode: 'Fast', tags: [], timeoutMs: 0, labels: {} });
  });
});
