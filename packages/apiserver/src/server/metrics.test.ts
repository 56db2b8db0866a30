import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, RawRequest } from '@kplane/api';
import { eventually } from '@kplane/api/testing';
import type { AdmissionAttributes } from '../admission/types.js';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook, type Webhook } from '../admission/webhook/plugin.js';
import { configMapWebhook, reply, startReviewServer, staticSource, type ReviewServer } from '../admission/webhook/webhook.fixture.js';
import { admissionAttributes, startTestServer, type TestServer } from '../testing.js';
import { createApiServerMetrics } from './metrics.js';

/** The value of the first series of `text` whose name and labels match `series` exactly ("name{a=\"b\",...}"), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

describe('/metrics', () => {
  let s: TestServer;
  let hooks: ReviewServer;
  before(async () => {
    s = await startTestServer();
    hooks = await startReviewServer((review) => (review.request.name === 'bad' ? reply(review, { allowed: false, status: { code: 403, message: 'bad name' } }) : reply(review)));
    const cfg = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'metrics' },
      webhooks: [
        {
          name: 'metrics.example.com',
          clientConfig: { url: hooks.url('/check'), caBundle: hooks.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        },
      ],
    };
    assert.equal((await s.call('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', cfg)).status, 201);
    await eventually('webhook in effect', async () => (await s.call('POST', '/api/v1/namespaces/default/configmaps', cm('bad'))).status === 403);
  });
  after(async () => {
    await s.close();
    await hooks.close();
  });

  const get = (user?: RawRequest['user']) => s.server.handle({ method: 'GET', path: '/metrics', query: {}, headers: {}, ...(user ? { user } : {}) });

  it('serves the webhook, admission step and request metrics in the Prometheus text format', async () => {
    assert.equal((await s.call('POST', '/api/v1/namespaces/default/configmaps', cm('good'))).status, 201);
    const r = await get();
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    const text = Buffer.from(r.body!).toString('utf8');
    const hook = 'name="metrics.example.com",type="validating",operation="CREATE"';
    assert.ok(sample(text, `apiserver_admission_webhook_admission_duration_seconds_count{${hook},rejected="false"}`)! >= 1, text);
    assert.ok(sample(text, `apiserver_admission_webhook_admission_duration_seconds_bucket{le="25",${hook},rejected="true"}`)! >= 1, text);
    assert.ok(sample(text, `apiserver_admission_webhook_request_total{${hook},code="200",rejected="false"}`)! >= 1);
    assert.ok(sample(text, `apiserver_admission_webhook_request_total{${hook},code="403",rejected="true"}`)! >= 1);
    assert.ok(sample(text, `apiserver_admission_webhook_rejection_count{${hook},error_type="no_error",rejection_code="403"}`)! >= 1);
    assert.ok(sample(text, 'apiserver_admission_step_admission_duration_seconds_count{type="validate",operation="CREATE",rejected="true"}')! >= 1);
    assert.ok(sample(text, 'apiserver_admission_step_admission_duration_seconds_count{type="admit",operation="CREATE",rejected="false"}')! >= 1);
    assert.ok(sample(text, 'apiserver_admission_controller_admission_duration_seconds_count{name="ValidatingAdmissionWebhook",type="validate",operation="CREATE",rejected="true"}')! >= 1);
    const post = 'verb="POST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver"';
    assert.equal(sample(text, `apiserver_request_total{${post},code="201"}`), 1);
    assert.ok(sample(text, `apiserver_request_total{${post},code="403"}`)! >= 1);
    assert.ok(sample(text, `apiserver_request_duration_seconds_count{${post}}`)! >= 2);
    assert.match(text, /^# TYPE apiserver_admission_webhook_admission_duration_seconds histogram$/m);
    assert.ok(sample(text, 'process_cpu_seconds_total')! > 0);
    assert.ok(sample(text, 'process_resident_memory_bytes')! > 1e6);
    assert.match(text, /^# TYPE process_cpu_seconds_total counter$/m);
  });

  it('counts LIST, GET and WATCH as kube names them', async () => {
    await s.call('GET', '/api/v1/namespaces/default/configmaps');
    await s.call('GET', '/api/v1/namespaces/default/configmaps/good');
    const text = Buffer.from((await get()).body!).toString('utf8');
    assert.equal(sample(text, 'apiserver_request_total{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="200"}'), 1);
    assert.equal(sample(text, 'apiserver_request_total{verb="GET",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="resource",component="apiserver",code="200"}'), 1);
  });

  it('counts only served resources and subresources, so made-up paths add no series', async () => {
    await s.call('GET', '/api/v1/namespaces/default/madeupthings');
    await s.call('GET', '/apis/nope.example.com/v1/widgets');
    await s.call('GET', '/api/v1/namespaces/default/configmaps/good/madeup');
    const text = Buffer.from((await get()).body!).toString('utf8');
    assert.doesNotMatch(text, /madeup|widgets/);
  });

  it('is readable by the system:monitoring group and refused to other users', async () => {
    assert.equal((await get({ username: 'watcher', groups: ['system:monitoring', 'system:authenticated'] })).status, 200);
    const refused = await get({ username: 'bob', groups: ['system:authenticated'] });
    assert.equal(refused.status, 403);
    assert.match(Buffer.from(refused.body!).toString(), /forbidden: User \\"bob\\" cannot get path \\"\/metrics\\"/);
  });

  it('keeps a registry per server: another server in the process has none of these series', async () => {
    const other = await startTestServer();
    try {
      const text = Buffer.from((await other.server.handle({ method: 'GET', path: '/metrics', query: {}, headers: {} })).body!).toString('utf8');
      assert.doesNotMatch(text, /metrics\.example\.com/);
      assert.doesNotMatch(text, /resource="configmaps"/);
    } finally {
      await other.close();
    }
  });
});

describe('webhook failure metrics', () => {
  const attrs = (): AdmissionAttributes => admissionAttributes(cm('x'), { namespace: 'default' });
  const down = (name: string, failurePolicy: 'Fail' | 'Ignore'): Webhook => configMapWebhook(name, { url: 'https://127.0.0.1:1/down' }, { failurePolicy });

  it('records a failed call as a calling_webhook_error rejection (Fail) or a fail-open (Ignore)', async () => {
    const metrics = createApiServerMetrics();
    await assert.rejects(validatingAdmissionWebhook(staticSource([down('fail.example.com', 'Fail')], [], { metrics })).validate(attrs()));
    await mutatingAdmissionWebhook(staticSource([], [down('ignore.example.com', 'Ignore')], { metrics })).admit(attrs());
    const text = await metrics.registry.metrics();
    assert.equal(sample(text, 'apiserver_admission_webhook_rejection_count{name="fail.example.com",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="400"}'), 1);
    assert.equal(sample(text, 'apiserver_admission_webhook_request_total{name="fail.example.com",type="validating",operation="CREATE",code="400",rejected="true"}'), 1);
    assert.equal(sample(text, 'apiserver_admission_webhook_fail_open_count{name="ignore.example.com",type="admit"}'), 1);
    assert.equal(sample(text, 'apiserver_admission_webhook_request_total{name="ignore.example.com",type="admit",operation="CREATE",code="400",rejected="false"}'), 1);
  });

  it('records matchConditions: their evaluation time, the requests they exclude and their errors', async () => {
    const metrics = createApiServerMetrics();
    const excluding = { ...down('excluded.example.com', 'Fail'), matchConditions: [{ name: 'never', expression: 'false' }] };
    const failing = { ...down('broken.example.com', 'Ignore'), matchConditions: [{ name: 'broken', expression: 'object.spec.replicas > 1' }] };
    await validatingAdmissionWebhook(staticSource([excluding, failing], [], { metrics })).validate(attrs());
    const text = await metrics.registry.metrics();
    assert.equal(sample(text, 'apiserver_admission_match_condition_exclusions_total{name="excluded.example.com",kind="webhook",type="validating",operation="CREATE"}'), 1);
    assert.equal(sample(text, 'apiserver_admission_match_condition_evaluation_errors_total{name="broken.example.com",kind="webhook",type="validating",operation="CREATE"}'), 1);
    assert.equal(sample(text, 'apiserver_admission_match_condition_evaluation_seconds_count{name="excluded.example.com",kind="webhook",type="validating",operation="CREATE"}'), 1);
  });
});
