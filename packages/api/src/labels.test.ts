import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelSelectorFromObject, parseLabelSelector, selectorFromSet, validateLabelSelector } from './labels.js';
import { ApiError } from './errors.js';

function parseError(s: string): string {
  try {
    parseLabelSelector(s);
  } catch (e) {
    assert.ok(e instanceof ApiError);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    return e.message;
  }
  assert.fail(`expected ${JSON.stringify(s)} to fail`);
}

test('parses every operator and matches', () => {
  const s = parseLabelSelector(' app = web , tier==front,env!=prod, zone in (a, b),  x notin (q), has, !gone ');
  assert.equal(s.empty, false);
  assert.equal(s.toString(), 'app=web,env!=prod,!gone,has,tier==front,x notin (q),zone in (a,b)');
  const base = { app: 'web', tier: 'front', env: 'dev', zone: 'b', has: '' };
  assert.equal(s.matches(base), true);
  assert.equal(s.matches({ ...base, env: 'prod' }), false);
  assert.equal(s.matches({ ...base, zone: 'c' }), false);
  assert.equal(s.matches({ ...base, x: 'q' }), false);
  assert.equal(s.matches({ ...base, gone: '1' }), false);
  const { has: _h, ...noHas } = base;
  assert.equal(s.matches(noHas), false);
  assert.equal(s.matches(undefined), false);
});

test('empty selector matches everything', () => {
  const s = parseLabelSelector('');
  assert.equal(s.empty, true);
  assert.equal(s.matches(undefined), true);
  assert.equal(s.toString(), '');
  assert.equal(parseLabelSelector('   ').empty, true);
});

test('in/notin as values, empty values and gt/lt', () => {
  assert.equal(parseLabelSelector('a in (in,notin)').matches({ a: 'notin' }), true);
  assert.equal(parseLabelSelector('a=').matches({ a: '' }), true);
  assert.equal(parseLabelSelector('a in ()').toString(), 'a in ()');
  assert.equal(parseLabelSelector('a in (,x)').matches({ a: '' }), true);
  assert.equal(parseLabelSelector('a notin (x)').matches({}), true);
  const gt = parseLabelSelector('n>5,m<3');
  assert.equal(gt.matches({ n: '6', m: '2' }), true);
  assert.equal(gt.matches({ n: '5', m: '2' }), false);
  assert.equal(gt.matches({ n: 'x', m: '2' }), false);
  assert.equal(gt.toString(), 'm<3,n>5');
});

test('parse errors carry the apimachinery wording', () => {
  assert.equal(parseError('a in'), "unable to parse requirement: found '' expected: '('");
  assert.equal(parseError('a in (b'), "unable to parse requirement: found '', expected: ',' or ')'");
  assert.equal(parseError('a,'), "found '', expected: identifier after ','");
  assert.equal(parseError('a b'), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  assert.equal(parseError('a=b c'), "found 'c', expected: ',' or 'end of string'");
  assert.equal(parseError('=a'), "found '=', expected: !, identifier, or 'end of string'");
  assert.match(parseError('a%b=c'), /^unable to parse requirement: <nil>: Invalid value: "a%b": name part must consist of alphanumeric characters/);
  assert.match(parseError('a=b%c'), /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "b%c": a valid label must be/);
  assert.equal(parseError('a>x'), 'unable to parse requirement: values[0]: Invalid value: "x": for \'Gt\', \'Lt\' operators, the value must be an integer');
  assert.equal(parseError('a in (x) y'), "found 'y', expected: ',' or 'end of string'");
});

test('labelSelectorFromObject follows LabelSelectorAsSelector', () => {
  assert.equal(labelSelectorFromObject(null).matches({}), false);
  assert.equal(labelSelectorFromObject(undefined).nothing, true);
  assert.equal(labelSelectorFromObject({}).empty, true);
  assert.equal(labelSelectorFromObject({}).matches({ a: 'b' }), true);
  const s = labelSelectorFromObject({
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['a', 'b'] },
      { key: 'gone', operator: 'DoesNotExist' },
      { key: 'env', operator: 'NotIn', values: ['prod'] },
      { key: 'has', operator: 'Exists' },
    ],
  });
  assert.equal(s.toString(), 'app=web,env notin (prod),!gone,has,tier in (a,b)');
  assert.equal(s.matches({ app: 'web', tier: 'a', has: 'x' }), true);
  assert.equal(s.matches({ app: 'web', tier: 'c', has: 'x' }), false);
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Foo' }] }), {
    code: 400,
    message: '"Foo" is not a valid label selector operator',
  });
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), {
    message: "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
  });
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }), {
    message: 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
  });
});

test('selectorFromSet and validateLabelSelector', () => {
  assert.equal(selectorFromSet({ b: '2', a: '1' }).toString(), 'a=1,b=2');
  assert.equal(selectorFromSet({}).empty, true);
  const causes = validateLabelSelector(
    { matchLabels: { 'bad key': 'v' }, matchExpressions: [{ key: 'a', operator: 'In' }, { key: 'b', operator: 'Exists', values: ['x'] }, { key: 'c', operator: 'Gt' }] },
    'spec.selector',
  );
  const lines = causes.map((c) => `${c.field}: ${c.message}`);
  assert.equal(lines.length, 4);
  assert.ok(lines[0]!.startsWith('spec.selector.matchLabels: Invalid value: "bad key": name part must consist of alphanumeric characters'));
  assert.deepEqual(lines.slice(1), [
    "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
    "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    'spec.selector.matchExpressions[2].operator: Invalid value: "Gt": not a valid selector operator',
  ]);
});
