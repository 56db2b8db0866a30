import { forbidden, type KubeObject } from '@kplane/api';
import type { AdmissionObjects } from './objects.js';
import type { AdmissionAttributes, MutatingStep, ValidatingStep } from './types.js';

/** The priority of a pod when no PriorityClass is the global default (DefaultPriorityWhenNoDefaultClassExists). */
export const DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS = 0;

interface PriorityClassLike extends KubeObject {
  value?: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
}

function isPriorityClasses(attrs: AdmissionAttributes): boolean {
  return attrs.resource.group === 'scheduling.k8s.io' && attrs.resource.resource === 'priorityclasses' && attrs.subresource === '';
}

/**
 * The Priority admission plugin. A new pod gets spec.priority and spec.preemptionPolicy from its
 * priorityClassName, or from the global default class (whose name it then takes; the lowest
 * value wins if several are default), or priority 0; an unknown class, or a priority or policy
 * that differs from the class's, is refused with kube's 403. A PriorityClass may not become a
 * second global default.
 */
export function priorityAdmission(objects: AdmissionObjects): MutatingStep & ValidatingStep {
  const classes = async () => (await objects.list('scheduling.k8s.io', 'v1', 'priorityclasses', '')) as PriorityClassLike[];
  return {
    name: 'Priority',
    operations: ['CREATE', 'UPDATE'],
    async admit(attrs) {
      if (attrs.operation !== 'CREATE' || attrs.resource.group !== '' || attrs.resource.resource !== 'pods' || attrs.subresource !== '') return;
      const pod = attrs.object;
      const spec = pod?.spec as { priorityClassName?: string; priority?: number; preemptionPolicy?: string } | undefined;
      if (!spec) return;
      const all = await classes();
      let cls: PriorityClassLike | undefined;
      if (!spec.priorityClassName) {
        cls = all.filter((c) => c.globalDefault === true).sort((a, b) => (a.value ?? 0) - (b.value ?? 0))[0];
        if (cls) spec.priorityClassName = cls.metadata?.name;
      } else {
        cls = all.find((c) => c.metadata?.name === spec.priorityClassName);
        // A class created a moment ago may not have reached the watch-kept copy yet: storage answers.
        if (!cls) cls = ((await objects.list('scheduling.k8s.io', 'v1', 'priorityclasses', '', { fresh: true })) as PriorityClassLike[]).find((c) => c.metadata?.name === spec.priorityClassName);
        if (!cls) throw forbidden('', 'pods', attrs.name, `no PriorityClass with name ${spec.priorityClassName} was found`);
      }
      const value = cls ? (cls.value ?? 0) : DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS;
      const policy = cls?.preemptionPolicy ?? 'PreemptLowerPriority';
      if (spec.priority !== undefined && spec.priority !== value) {
        throw forbidden('', 'pods', attrs.name, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${value} from the given PriorityClass name`);
      }
      if (spec.preemptionPolicy !== undefined && spec.preemptionPolicy !== policy) {
        throw forbidden('', 'pods', attrs.name, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
      }
      spec.priority = value;
      spec.preemptionPolicy = policy;
    },
    async validate(attrs) {
      if (!isPriorityClasses(attrs)) return;
      const pc = attrs.object as PriorityClassLike | undefined;
      if (!pc?.globalDefault) return;
      const other = (await classes()).find((c) => c.globalDefault === true && c.metadata?.name !== pc.metadata?.name);
      if (other) {
        throw forbidden('scheduling.k8s.io', 'priorityclasses', attrs.name, `PriorityClass ${other.metadata?.name} is already marked as default. Only one default can exist`);
      }
    },
  };
}
