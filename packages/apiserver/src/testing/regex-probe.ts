/**
 * Worker-thread entry for the pathological-pattern test: it serves a CRD whose schema has
 * `pattern: ^(a+)+$` and a CEL `matches()` rule with the same expression, writes objects whose
 * value backtracks exponentially under a backtracking engine, and reports the answers and
 * whether /readyz answered meanwhile. It runs in a worker so that the test thread can stop it
 * (and fail) if an engine never returns.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { send } from './expect.js';
import { startTestServer } from '../testing.js';

/** The pathological expression. */
export const PATHOLOGICAL = '^(a+)+$';

/** A CRD with the pattern on spec.p and the CEL rule on spec.q. */
export function pathologicalCrd(): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'redoses.safety.example.com' },
    spec: {
      group: 'safety.example.com',
      scope: 'Namespaced',
      names: { kind: 'Redos', listKind: 'RedosList', plural: 'redoses', singular: 'redos' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: {
          p: { type: 'string', maxLength: 64, pattern: PATHOLOGICAL },
          q: { type: 'string', maxLength: 64, 'x-kubernetes-validations': [{ rule: `self.matches('${PATHOLOGICAL}')` }] },
        } } } } },
      }],
    },
  };
}

/** What the probe reports. */
export interface RegexProbeResult {
  pattern: { status: number; body: any };
  cel: { status: number; body: any };
  /** /readyz answers sent while each write was in flight. */
  readyz: number[];
}

async function probe(length: number): Promise<RegexProbeResult> {
  const t = await startTestServer();
  try {
    const h = t.server.handle;
    const crd = await send(h, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', pathologicalCrd());
    if (crd.status !== 201) throw new Error(`CRD refused: ${crd.status} ${crd.text}`);
    const path = '/apis/safety.example.com/v1/namespaces/default/redoses';
    for (let i = 0; (await send(h, 'GET', path)).status !== 200; i++) {
      if (i > 10_000) throw new Error('the CRD was never served');
      await new Promise((r) => setImmediate(r));
    }
    const evil = 'a'.repeat(length) + '!';
    const obj = (name: string, spec: object) => ({ apiVersion: 'safety.example.com/v1', kind: 'Redos', metadata: { name }, spec });
    const readyz: number[] = [];
    const write = async (name: string, spec: object) => {
      const pending = send(h, 'POST', path, obj(name, spec));
      const ready = await h({ method: 'GET', path: '/readyz', query: {}, headers: {} });
      readyz.push(ready.status);
      const r = await pending;
      return { status: r.status, body: r.body };
    };
    const pattern = await write('by-pattern', { p: evil });
    const cel = await write('by-cel', { q: evil });
    return { pattern, cel, readyz };
  } finally {
    await t.close();
  }
}

if (parentPort && workerData?.regexProbe) {
  const port = parentPort;
  probe(Number(workerData.length ?? 40)).then(
    (result) => port.postMessage({ result }),
    (err) => port.postMessage({ error: String((err as Error)?.stack ?? err) }),
  );
}
