export * from './interface';
export * from './plugins/namespace-lifecycle';
export * from './plugins/resource-quota';
