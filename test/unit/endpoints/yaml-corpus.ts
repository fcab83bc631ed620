/** YAML documents the decoder must read exactly as js-yaml 4's JSON_SCHEMA loader did (shared by the sync and worker tests). */
export const yamlValueCorpus: string[] = [
  'a: 1\nb: [1, 2.5, true, null, ~, "x", \'y\']\nc: {d: e}\n',
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: {a: b}\ndata:\n  k: |\n    line\n    two\n  j: >-\n    folded\n    text\n',
  'x: 0x1f\ny: 1e3\nz: .inf\nw: -.5\nv: "123"\nu: 012\nt: True\ns: NULL\nr: 1_000\n',
  '- a\n- - b\n  - c\n- k: v\n  l: [m]\n',
  'a: !!str 123\nb: !!int "7"\nc: ! 5\nd: !!float 1\n',
  'a:\nb: \n- x\n',
  'k:\n- a\n- b\nl:\n  - c\n',
  '"quoted key": 1\n? complex\n: value\n',
  'a: &x {p: 1}\nb: *x\nc: &y 5\nd: [*y, *y]\n',
  '',
  '# only a comment\n',
  '---\na: 1\n',
  '{"json": [1, {"nested": null}]}',
];
