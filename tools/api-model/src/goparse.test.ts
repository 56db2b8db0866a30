import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Problems } from './draft.js';
import { goString, marker, newGoPackage, parseGoFile, tagValue } from './goparse.js';
import { SHOP_GO } from './fixtures.js';

test('reads structs, members, named types, constants, imports and UnmarshalJSON methods', () => {
  const pkg = newGoPackage();
  const problems = new Problems();
  parseGoFile(SHOP_GO + '\nfunc (w *Widget) UnmarshalJSON(b []byte) error {\n\treturn nil\n}\n', pkg, 'shop.go', problems);
  assert.deepEqual(problems.list, []);
  const widget = pkg.types.get('Widget')!;
  assert.deepEqual(widget.members!.map((m) => [m.name, m.type]), [
    [undefined, 'metav1.TypeMeta'],
    [undefined, 'metav1.ObjectMeta'],
    ['Spec', 'WidgetSpec'],
  ]);
  assert.deepEqual(widget.members![1]!.comments, ['+optional']);
  assert.equal(pkg.types.get('WidgetSpec')!.members!.length, 9);
  assert.deepEqual(pkg.types.get('Colour'), { name: 'Colour', comments: ['+enum'], underlying: 'string' });
  assert.equal(pkg.types.get('ExtraValue')!.underlying, '[]string');
  assert.deepEqual(pkg.consts, [
    { name: 'ColourRed', type: 'Colour', value: 'red' },
    { name: 'ColourBlue', type: 'Colour', value: 'blue' },
  ]);
  assert.equal(pkg.imports.get('metav1'), 'k8s.io/apimachinery/pkg/apis/meta/v1');
  assert.deepEqual([...pkg.unmarshalers], ['Widget']);
});

test('records a constant that converts another constant by that constant\'s name', () => {
  const pkg = newGoPackage();
  parseGoFile('package x\n\nconst (\n\tA = T(v1.IPv4)\n\tB = T(local)\n\tC = T("c")\n\tD = T(f(1))\n)\n', pkg, 'x.go', new Problems());
  assert.deepEqual(pkg.consts, [
    { name: 'A', type: 'T', ref: 'v1.IPv4' },
    { name: 'B', type: 'T', ref: 'local' },
    { name: 'C', type: 'T', value: 'c' },
  ]);
});

test('reads several names in one member line and skips function bodies', () => {
  const pkg = newGoPackage();
  const problems = new Problems();
  const src = 'package x\n\nfunc f() {\n\ttype inner struct {\n\t\tA int\n\t}\n}\n\ntype pair struct {\n\ta, b int32\n}\n';
  parseGoFile(src, pkg, 'x.go', problems);
  assert.deepEqual(problems.list, []);
  assert.equal(pkg.types.has('inner'), false);
  assert.deepEqual(pkg.types.get('pair')!.members!.map((m) => m.name), ['a', 'b']);
});

test('reports a member it cannot read', () => {
  const problems = new Problems();
  parseGoFile('package x\n\ntype T struct {\n\tA struct {\n\t}\n}\n', newGoPackage(), 'x.go', problems);
  assert.ok(problems.list.length > 0);
});

test('markers, tags and string literals', () => {
  assert.equal(marker(['+optional', '+default="TCP"'], 'default'), '"TCP"');
  assert.equal(marker(['+optional'], 'optional'), '');
  assert.equal(marker(['some text'], 'default'), undefined);
  assert.equal(tagValue('json:"name,omitempty" protobuf:"bytes,1,opt,name=name"', 'json'), 'name,omitempty');
  assert.equal(tagValue('json:"name,omitempty" protobuf:"bytes,1,opt,name=name"', 'protobuf'), 'bytes,1,opt,name=name');
  assert.equal(tagValue('json:"x"', 'protobuf'), undefined);
  assert.equal(goString('"a\\"b"'), 'a"b');
  assert.equal(goString('`raw`'), 'raw');
  assert.equal(goString('iota'), undefined);
});
