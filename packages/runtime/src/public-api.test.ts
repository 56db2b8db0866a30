import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as publicApi from './index.js';
import * as internal from './internal.js';
import * as testing from './testing/index.js';

// The values `@kplane/runtime` exports (its types are listed in the README's "Public API").
// A change here is a change to the public API: update the README with it.
const PUBLIC_VALUES = `
  Action AlreadyOwnedError BuilderError CONTROLLER_OWNER_INDEX CacheSyncTimeoutError FinalizerError
  GracefulShutdownTimeoutError KubeType LeaderElectionLostError NAMESPACE_INDEX RecoveredPanic
  SchemaConversionError TerminalError UnauthorizedError
  addFinalizer and annotationsChanged bucketRateLimiter builtinDescriptors containsFinalizer createController
  createDelegatedAuth createEventRecorder createFakeClock createInformer createInformerFactory createLeaderElector
  createManager createMetrics createOrUpdate createWorkqueue defaultControllerRateLimiter defineKind finalizer
  findStatusCondition formatTime generationChanged getControllerOf hasControllerReference hasOwnerReference isPanic
  isStatusConditionFalse isStatusConditionPresentAndEqual isStatusConditionTrue itemExponentialFailureRateLimiter
  itemFastSlowRateLimiter keyOf kindDescriptor kinds labelsChanged logPanic maxOfRateLimiter newObject objectKey
  objectReference or parseBindAddress patchStatus realClock removeFinalizer removeStatusCondition requestFromKey resourceOf
  resourceVersionChanged serveManagerMetrics serveMetrics setControllerReference setOwnerReference setStatusCondition
  structuralSchemaErrors toStructuralSchema updateStatus
  conversionWebhook convertObject createJsonPatch createWebhookServer defaultingHandler generateWebhookCertificates
  reviewAdmission reviewConversion validatingHandler webhookConfigurations webhookPath
`.split(/\s+/).filter(Boolean);

/** A typed descriptor of a built-in kind: a frozen object with group, version, resource and kind. */
const isDescriptor = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && Object.isFrozen(v) && typeof (v as { resource?: unknown }).resource === 'string' && typeof (v as { kind?: unknown }).kind === 'string';

test('@kplane/runtime exports the curated values and the built-in kinds’ descriptors, nothing else', () => {
  const names = Object.keys(publicApi);
  const descriptors = names.filter((n) => isDescriptor((publicApi as Record<string, unknown>)[n]));
  assert.ok(descriptors.includes('Deployments') && descriptors.includes('Jobs'), descriptors.join(' '));
  assert.deepEqual(names.filter((n) => !descriptors.includes(n)).sort(), [...PUBLIC_VALUES].sort());
});

test('@kplane/runtime/internal holds only what the public API does not', () => {
  const overlap = Object.keys(internal).filter((n) => n in publicApi);
  assert.deepEqual(overlap, []);
  for (const name of ['deepFreeze', 'createStore', 'watcher', 'createLeaseLock', 'effectiveTaints', 'reportPanic']) {
    assert.ok(name in internal, name);
  }
});

test('@kplane/runtime/testing holds the fake-clock helpers and no server', () => {
  assert.deepEqual(Object.keys(testing).sort(), ['flushMicrotasks', 'settle', 'tick', 'watchProcessFailures']);
});
