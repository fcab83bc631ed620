export * from './interface';
export * from './plugins/namespace-lifecycle';
