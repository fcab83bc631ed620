export * from './interface';
export * from './deps';
export * from './plugin-order';
export * from './plugin-registry';
export * from './register-all';
export * from './plugins/namespace-lifecycle';
export * from './plugins/resource-quota';
export * from './plugins/quota-accessor';
