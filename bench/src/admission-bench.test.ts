import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '@kplane/api/testing';
import { startControlPlane, type ControlPlane } from 'kplane';
import { benchAdmission, formatAdmission, webhookCallsCounted } from './admission-bench.js';
import { startAllowAllWebhook, type AllowAllWebhook } from './webhook-server.js';

// A real kplane, in process, on memory storage; the webhook is a real HTTPS server.
let cp: ControlPlane;
let webhook: AllowAllWebhook;
before(async () => {
  cp = await startControlPlane({ storage: 'memory', listen: false });
  webhook = await startAllowAllWebhook();
});
after(async () => {
  await webhook.close();
  await cp.stop();
});

const configMap = (name: string, namespace: string): object => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { k: name } });

test('benchAdmission runs the three cases, calls the webhook for each create of its case, and removes its objects', async () => {
  let cpu = 0;
  const r = await benchAdmission(cp.transport, { webhook, concurrency: 4, rounds: 2, roundMs: 150, warmupMs: 20, configMap, serverCpuMs: () => (cpu += 5) });
  for (const c of [r.none, r.webhook, r.policy]) {
    assert.ok(c.result.requests > 0, c.name);
    assert.equal(c.result.errors, 0, c.result.firstError);
    assert.ok(c.serverUsPerCreate! > 0);
  }
  assert.equal(r.webhookCalls, r.webhookCreates);
  assert.ok(webhook.answered() >= r.webhookCreates);
  const out = formatAdmission(r, { minWebhookRatio: 0.5, minPolicyRatio: 0.8 });
  assert.match(out, /one validating webhook \(allows all\)\s+\d+\s+\d\.\d\dx\s+>= 0\.5x (met|MISSED)/);
  assert.match(out, /one ValidatingAdmissionPolicy \(CEL\)\s+\d+\s+\d\.\d\dx\s+>= 0\.8x (met|MISSED)/);
  // The configuration is removed: creates in the webhook's namespace stop calling it.
  let n = 0;
  await eventually('the webhook no longer called', async () => {
    const before = await webhookCallsCounted(cp.transport);
    const body = Buffer.from(JSON.stringify(configMap(`after-${n++}`, 'bench-admission-webhook')));
    const res = await cp.transport({ method: 'POST', path: '/api/v1/namespaces/bench-admission-webhook/configmaps', headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 201);
    return (await webhookCallsCounted(cp.transport)) === before;
  });
});
