/** The controller-history library: ControllerRevisions for the StatefulSet and DaemonSet controllers. */
export { CONTROLLER_REVISION_HASH_LABEL, controllerRevisionName, fnv32, goJsonMarshal, hashControllerRevision, revisionDataBytes } from './hash.js';
export {
  createControllerHistory,
  equalRevision,
  findEqualRevisions,
  newControllerRevision,
  nextRevision,
  ownedOrOrphanRevisions,
  revisionsToTruncate,
  sortControllerRevisions,
  type ControllerHistory,
  type HistoryParent,
} from './history.js';
