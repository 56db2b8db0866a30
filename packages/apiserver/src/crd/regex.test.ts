import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRegex, REGEX_CACHE_SIZE, regexCacheSize, regexFind, regexFindAll, regexSyntaxError, regexTest } from './regex.js';
import { patternMatches, validateValue } from './schema-values.js';
import { validateCRDSchema } from './structural.js';
import { loadCel } from './cel/load.js';

// Entry points load the CEL library before the synchronous code these tests call.
await loadCel();

test('catastrophic-backtracking patterns answer at once: RE2 matches in one pass', () => {
  // With a backtracking engine each of these takes longer than the age of the universe.
  const attacks: [string, string][] = [
    ['^(a+)+$', `${'a'.repeat(40)}!`],
    ['^(a|a)*$', `${'a'.repeat(40)}!`],
    ['^(a|aa)+$', `${'a'.repeat(5000)}!`],
    ['(x+x+)+y', 'x'.repeat(100_000)],
    ['^([a-z0-9]+-?)+[a-z0-9]$', `${'a-'.repeat(50_000)}-`],
  ];
  for (const [pattern, value] of attacks) assert.equal(regexTest(pattern, value), false, pattern);
  assert.equal(regexTest('^(a+)+$', 'a'.repeat(1_000_000)), true);
});

test('RE2 syntax: Go-only constructs work, backtracking-only constructs are refused with Go messages', () => {
  assert.equal(regexTest('c\\z', 'abc'), true, '\\z is end of text in RE2');
  assert.equal(regexTest('(?i)^ABC$', 'abc'), true);
  assert.equal(regexTest('^[[:alpha:]]+$', 'abc'), true);
  assert.equal(regexTest('^\\pL+$', 'héllo'), true);
  assert.equal(regexTest('^\\Qa.b\\E$', 'a.b'), true);
  assert.equal(regexTest('^\\Qa.b\\E$', 'axb'), false);
  assert.equal(regexTest('^.$', '😀'), true, 'a dot is one code point');
  assert.equal(regexTest('^\\s$', '\u00a0'), false, '\\s is ASCII space in RE2');
  assert.equal(regexSyntaxError('(?=a)'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
  assert.equal(regexSyntaxError('(a)\\1'), 'error parsing regexp: invalid escape sequence: `\\1`');
  assert.equal(regexSyntaxError('(a'), 'error parsing regexp: missing closing ): `(a`');
  assert.equal(regexSyntaxError('x++'), 'error parsing regexp: invalid nested repetition operator: `++`');
  assert.equal(regexSyntaxError('a{1001}'), 'error parsing regexp: invalid repeat count: `{1001}`');
  assert.equal(regexSyntaxError('^[a-z]+$'), undefined);
});

test('find and findAll follow Go: leftmost match, empty matches after a match skipped, limits', () => {
  assert.equal(regexFind('[0-9]+', 'abc 123 456'), '123');
  assert.equal(regexFind('xyz', 'abc'), '');
  assert.deepEqual(regexFindAll('[0-9]+', 'this is a 123 string 456'), ['123', '456']);
  assert.deepEqual(regexFindAll('[0-9]*', '123 abc 456'), ['123', '', '', '', '', '456']);
  assert.deepEqual(regexFindAll('[0-9]+', 'this is a 123 string 456', 1), ['123']);
  assert.deepEqual(regexFindAll('[0-9]+', 'this is a 123 string 456', 0), []);
  assert.deepEqual(regexFindAll('xyz', 'abc'), []);
});

test('compiled expressions are cached and the cache is bounded', () => {
  const re = compileRegex('^cached-[0-9]+$');
  assert.equal(compileRegex('^cached-[0-9]+$'), re, 'the same pattern compiles once');
  for (let i = 0; i < REGEX_CACHE_SIZE + 50; i++) compileRegex(`^p${i}$`);
  assert.equal(regexCacheSize(), REGEX_CACHE_SIZE);
  assert.notEqual(compileRegex('^cached-[0-9]+$'), re, 'the least recently used entry was evicted');
});

test('schema pattern: RE2 search anywhere in the value, kube-apiserver message', () => {
  const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } } as const;
  const causes = validateValue({ name: `${'a'.repeat(40)}!` }, schema, 'spec');
  assert.deepEqual(
    causes.map((c) => `${c.field}: ${c.message}`),
    [`spec.name: Invalid value: "${'a'.repeat(40)}!": spec.name in body should match '^(a+)+$'`],
  );
  assert.equal(patternMatches('[0-9]', 'abc1'), true, 'unanchored, as Go MatchString');
  assert.equal(patternMatches('(', 'x'), false, 'a pattern that is not RE2 matches nothing');
});

test('a CRD pattern that is not RE2 is refused when the CRD is written, with Go message', () => {
  const causes = validateCRDSchema(
    { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string', pattern: '^(?!x)' }, b: { type: 'string', pattern: '^\\d+\\z' } } } } },
    false,
    'spec.validation',
  );
  assert.deepEqual(
    causes.map((c) => `${c.field}: ${c.message}`),
    ["spec.validation.openAPIV3Schema.properties[spec].properties[a].pattern: Invalid value: \"^(?!x)\": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `(?!`"],
  );
});
