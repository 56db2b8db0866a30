import { createClient } from '@kplane/client';
import { createManager } from '@kplane/runtime';
import type { TestControlPlane } from '@kplane/testing';
import { addSecretCopier } from './controller.js';

/**
 * Test support: runs the copier in a manager on the control plane's virtual clock, its client on
 * `transport` (the control plane's, wrapped to record or fail calls), until `signal` aborts;
 * resolves once the control plane has settled.
 */
export async function runCopier(cp: TestControlPlane, transport: TestControlPlane['transport'], signal: AbortSignal): Promise<void> {
  const mgr = createManager({ client: createClient({ transport, defaultNamespace: 'default' }), clock: cp.clock });
  addSecretCopier(mgr);
  void mgr.start(signal);
  await cp.settle();
}
