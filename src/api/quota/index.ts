export * from './resource-list';
export * from './pod-usage';
export * from './scopes';
export * from './evaluator';
