import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiError } from '@kplane/api';
import type { AdmissionAttributes } from '../types.js';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook, type Webhook } from './plugin.js';
import { admissionAttributes } from '../../testing/admission.js';
import { configMapWebhook, jsonPatch, reply, startReviewServer, staticSource, type ReviewServer } from './webhook.fixture.js';

describe('AdmissionReview versions and answers', () => {
  let server: ReviewServer;
  before(async () => {
    server = await startReviewServer((review, path) => {
      if (path === '/bare') return { response: { uid: review.request.uid, allowed: true } }; // no apiVersion/kind
      if (path === '/patch') return reply(review, jsonPatch([{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }]));
      if (path === '/patch-untyped') return reply(review, { patch: jsonPatch([]).patch });
      if (path === '/v1beta1-patch') return { response: { allowed: true, patch: jsonPatch([{ op: 'add', path: '/metadata/labels', value: { beta: 'yes' } }]).patch } };
      return reply(review);
    });
  });
  after(() => server.close());

  const hook = (name: string, path: string, extra: Partial<Webhook> = {}): Webhook => configMapWebhook(name, { url: server.url(path), caBundle: server.caBundle }, extra);
  const attrs = (): AdmissionAttributes => admissionAttributes({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' } });
  const lastVersion = () => server.received.at(-1)!.review.apiVersion;

  it('sends the first version of the webhook\'s list that kplane speaks', async () => {
    await validatingAdmissionWebhook(staticSource([hook('beta.example.com', '/allow', { admissionReviewVersions: ['v1beta1', 'v1'] })])).validate(attrs());
    assert.equal(lastVersion(), 'admission.k8s.io/v1beta1');
    await validatingAdmissionWebhook(staticSource([hook('v1.example.com', '/allow', { admissionReviewVersions: ['v2', 'v1', 'v1beta1'] })])).validate(attrs());
    assert.equal(lastVersion(), 'admission.k8s.io/v1');
  });

  it('fails a webhook that accepts no version kplane speaks with kube\'s message, unless failurePolicy is Ignore', async () => {
    const before = server.received.length;
    const h = hook('v2.example.com', '/allow', { admissionReviewVersions: ['v2'] });
    await assert.rejects(validatingAdmissionWebhook(staticSource([h])).validate(attrs()), (e: ApiError) => {
      assert.equal(e.code, 500);
      assert.equal(e.message, 'Internal error occurred: failed calling webhook "v2.example.com": could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)');
      return true;
    });
    await validatingAdmissionWebhook(staticSource([{ ...h, failurePolicy: 'Ignore' }])).validate(attrs());
    assert.equal(server.received.length, before, 'never called');
  });

  it('checks a v1 answer as kube does: its apiVersion and kind, and patch with patchType', async () => {
    await assert.rejects(
      validatingAdmissionWebhook(staticSource([hook('bare.example.com', '/bare')])).validate(attrs()),
      /failed calling webhook "bare.example.com": received invalid webhook response: expected webhook response of admission.k8s.io\/v1, Kind=AdmissionReview, got , Kind=$/,
    );
    await assert.rejects(validatingAdmissionWebhook(staticSource([hook('vpatch.example.com', '/patch')])).validate(attrs()), /received invalid webhook response: validating webhook may not return response.patch$/);
    await assert.rejects(mutatingAdmissionWebhook(staticSource([], [hook('untyped.example.com', '/patch-untyped')])).admit(attrs()), /received invalid webhook response: webhook returned response.patch but not response.patchType$/);
    const a = attrs();
    await mutatingAdmissionWebhook(staticSource([], [hook('typed.example.com', '/patch')])).admit(a);
    assert.deepEqual(a.object!.metadata!.labels, { a: 'b' });
  });

  it('takes a v1beta1 answer as it comes: no uid or kind check, a patch is a JSONPatch', async () => {
    const a = attrs();
    await mutatingAdmissionWebhook(staticSource([], [hook('beta-patch.example.com', '/v1beta1-patch', { admissionReviewVersions: ['v1beta1'] })])).admit(a);
    assert.deepEqual(a.object!.metadata!.labels, { beta: 'yes' });
  });

  it('keeps the connection to a webhook open between calls', async () => {
    const step = validatingAdmissionWebhook(staticSource([hook('reuse.example.com', '/allow')]));
    await step.validate(attrs());
    const opened = server.connections();
    for (let i = 0; i < 5; i++) await step.validate(attrs());
    assert.equal(server.connections(), opened);
  });
});
