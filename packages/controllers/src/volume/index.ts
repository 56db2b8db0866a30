/** The volume controllers: persistentvolume-binder (with the simulated provisioner), pvc-protection and pv-protection. */
export { createPersistentVolumeBinderController, type BinderOptions } from './binder.js';
export { createPvProtectionController, createPvcProtectionController } from './protection.js';
export * from './util.js';
