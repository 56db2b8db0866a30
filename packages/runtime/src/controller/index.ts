export { Action, TerminalError, keyOf, requestFromKey, type Request } from './action.js';
export { createController, type Controller, type ControllerOptions, type ReconcileContext, type Reconciler, type Runnable, type Source } from './controller.js';
export { BuilderError, ControllerBuilder, type BuilderContext, type MapFunc, type WatchOptions } from './builder.js';
export { and, annotationsChanged, generationChanged, labelsChanged, or, resourceVersionChanged, type Predicate, type WatchChange } from './predicates.js';
