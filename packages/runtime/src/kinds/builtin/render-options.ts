/**
 * How the runtime renders the model of the built-in API into `generated.ts` (see
 * generated.test.ts, which checks the file against this rendering and rewrites it on demand).
 * Types only: nothing here loads the model.
 */
import type { RenderTypesOptions } from '@kplane/api/model';

/** The command that rewrites generated.ts (quoted in its header and in the check's failure). */
export const REGENERATE_COMMAND = 'npx tsc -b && KPLANE_UPDATE_GENERATED=1 node --test packages/runtime/dist/kinds/builtin/';

/** The options of the runtime's rendering. */
export const RUNTIME_TYPES_OPTIONS: RenderTypesOptions = {
  header: [
    'Generated from the model of the built-in API; do not edit.',
    'Derived from the Kubernetes v1.32.0 API definitions (Apache License 2.0).',
    `Rewrite it with: ${REGENERATE_COMMAND}`,
  ],
  imports: ["import type { KubeObject, ObjectMeta as KubeObjectMeta } from '@kplane/api';"],
  // Every object kind works with informers, stores and helpers as a KubeObject.
  kindBase: 'KubeObject',
  // ObjectMeta stays assignable to the KubeObject's metadata.
  bases: { 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta': 'KubeObjectMeta' },
  // Names kept stable whatever other packages join the model.
  names: {
    'io.k8s.api.events.v1.Event': 'EventsV1Event',
    'io.k8s.api.events.v1.EventSeries': 'EventsV1EventSeries',
    // The rule would give Subject to flowcontrol.apiserver.k8s.io/v1 (alphabetically first).
    'io.k8s.api.rbac.v1.Subject': 'Subject',
    'io.k8s.api.flowcontrol.v1.Subject': 'FlowcontrolV1Subject',
  },
};
