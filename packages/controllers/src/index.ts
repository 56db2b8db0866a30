/** @kplane/controllers — kplane's built-in controllers and the controller manager that runs them. */
export * from './garbagecollector/index.js';
