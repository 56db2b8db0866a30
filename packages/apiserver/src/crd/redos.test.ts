/**
 * Through the whole API server: patterns and CEL rules chosen to stall a backtracking engine
 * answer at once and the server stays responsive; CEL cost budgets give kube-apiserver's 422s.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '@kplane/api/testing';
import type { KubeObject } from '@kplane/api';
import { createMemoryBackend, type Backend } from '@kplane/storage';
import { createApiServer, type ApiServer } from '../server/server.js';

let backend: Backend;
let server: ApiServer;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await server.handle({
    method,
    path,
    query: {},
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
  });
  const text = r.body ? Buffer.from(r.body).toString('utf8') : '';
  try {
    return { status: r.status, body: JSON.parse(text) };
  } catch {
    return { status: r.status, body: text };
  }
}

const causes = (r: { body: any }): string[] => (r.body.details?.causes ?? []).map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const TRAPS = '/apis/redos.example.com/v1/namespaces/demo/traps';
const EVIL = `${'a'.repeat(40)}!`;
/** A 403-character pattern: each regex call on a string of 12,500 characters costs 126,351. */
const LONG_PATTERN = `^(${'a|'.repeat(199)}a)*$`;

function crd(spec: Record<string, unknown>, plural = 'traps', kind = 'Trap'): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.redos.example.com` },
    spec: {
      group: 'redos.example.com',
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } } }],
    },
  };
}

const trap = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'redos.example.com/v1', kind: 'Trap', metadata: { name, namespace: 'demo' }, spec });

before(async () => {
  backend = createMemoryBackend();
  server = createApiServer({ backend });
  await server.start();
  await call('POST', '/api/v1/namespaces', { metadata: { name: 'demo' } });
  const created = await call(
    'POST',
    CRDS,
    crd({
      name: { type: 'string', maxLength: 100, pattern: '^(a+)+$' },
      tag: { type: 'string', maxLength: 100, 'x-kubernetes-validations': [{ rule: "self.matches('^(a|a)*$')", message: 'tag must be made of a' }] },
      // Kubernetes bounds a string of maxLength 12,500 by 50,000 bytes: each rule may cost 19 × 126,352
      // by the static estimate (under 10,000,000); at run time each costs 126,351 on 12,500 characters,
      // so eight rules make a part cost about 1,010,808.
      parts: {
        type: 'array',
        maxItems: 19,
        items: {
          type: 'string',
          maxLength: 12_500,
          'x-kubernetes-validations': Array.from({ length: 8 }, (_, i) =>
            i % 2 === 0 ? { rule: `self.matches('${LONG_PATTERN}')`, message: 'a part is made of a' } : { rule: `self.find('${LONG_PATTERN}') == self`, message: 'a part is all a' },
          ),
        },
      },
      // Estimated 4,040,102 (under the static limit of 10,000,000), over the per-call limit at run time.
      big: { type: 'string', maxLength: 100_000, 'x-kubernetes-validations': [{ rule: `self.matches('${LONG_PATTERN}')`, message: 'big is made of a' }, { rule: 'false' }] },
    }),
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  // The CRD controller serves the resource once it has seen the CRD: yield until it has.
  await until('the traps served', async () => (await call('GET', TRAPS)).status === 200, { intervalMs: 0 });
});

after(async () => {
  await server.close();
  await backend.close();
});

test('a catastrophic pattern answers 422 at once, and the server answers in between', async () => {
  const r = await call('POST', TRAPS, trap('p', { name: EVIL }));
  assert.equal(r.status, 422);
  assert.deepEqual(causes(r), [`spec.name: Invalid value: "${EVIL}": spec.name in body should match '^(a+)+$'`]);
  assert.equal((await call('GET', '/readyz')).status, 200);
  const again = await call('POST', TRAPS, trap('p', { name: `${'a'.repeat(99)}!` }));
  assert.equal(again.status, 422);
  assert.equal((await call('GET', '/readyz')).status, 200);
});

test('a CEL rule with a catastrophic regex answers 422 at once, and the server answers in between', async () => {
  const r = await call('POST', TRAPS, trap('c', { tag: EVIL }));
  assert.equal(r.status, 422);
  assert.deepEqual(causes(r), [`spec.tag: Invalid value: "${EVIL}": tag must be made of a`]);
  assert.equal((await call('GET', '/readyz')).status, 200);
});

test('ordinary values still pass the same pattern and rule', async () => {
  const r = await call('POST', TRAPS, trap('ok', { name: 'aaa', tag: 'aa', parts: ['aaaa'] }));
  assert.equal(r.status, 201, JSON.stringify(r.body));
});

test('the cost budget of one object: validation stops with 422 once 10,000,000 is spent', async () => {
  const part = 'a'.repeat(12_500);
  // 9 parts cost about 9,097,272: within the budget.
  const within = await call('POST', TRAPS, trap('within', { parts: Array.from({ length: 9 }, () => part) }));
  assert.equal(within.status, 201, JSON.stringify(within.body).slice(0, 500));
  // The last rule of the 10th part would take the total past 10,000,000.
  const over = await call('POST', TRAPS, trap('over', { parts: Array.from({ length: 12 }, () => part) }));
  assert.equal(over.status, 422);
  assert.equal(over.body.reason, 'Invalid');
  assert.deepEqual(causes(over), ['spec.parts[9]: Invalid value: "string": validation failed due to running out of cost budget, no further validation rules will be run']);
  assert.equal((await call('GET', '/readyz')).status, 200);
});

test('the per-call limit: a rule that would cost over 1,000,000 is cancelled with 422, no further rule runs', async () => {
  // Causes show the value; the long strings of this test are shortened to their length.
  const short = (r: { body: any }) => causes(r).map((c) => c.replace(/"(a{50,})"/, (_m, a: string) => `<${a.length} a>`));
  const fits = await call('POST', TRAPS, trap('fits', { big: 'a'.repeat(90_000) }));
  assert.deepEqual(short(fits), ['spec.big: Invalid value: <90000 a>: failed rule: false'], 'under the limit both rules run');
  const over = await call('POST', TRAPS, trap('big', { big: 'a'.repeat(100_000) }));
  assert.equal(over.status, 422);
  assert.deepEqual(short(over), [
    `spec.big: Invalid value: "string": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: big is made of a`,
  ]);
});

test('CRDs whose regexes are not RE2 are refused with Go messages', async () => {
  const lookahead = await call('POST', CRDS, crd({ a: { type: 'string', pattern: '^(?!x)' } }, 'looks', 'Look'));
  assert.equal(lookahead.status, 422);
  assert.match(lookahead.body.message, /spec\.validation\.openAPIV3Schema\.properties\[spec\]\.properties\[a\]\.pattern: Invalid value: "\^\(\?!x\)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `\(\?!`|pattern: Invalid value: "\^\(\?!x\)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `\(\?!`/);
  const rule = await call('POST', CRDS, crd({ a: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: "self.matches('x++')" }, { rule: "self.find(')') == ''" }] } }, 'rules', 'Rule'));
  assert.equal(rule.status, 422);
  const messages = causes(rule).join('\n');
  assert.match(messages, /x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed: ERROR: <input>:1:14: invalid matches argument/);
  assert.match(messages, /x-kubernetes-validations\[1\]\.rule: Invalid value: .*program instantiation failed: error parsing regexp: unexpected \): `\)`/);
});
