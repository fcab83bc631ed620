export * from './context';
export * from './resource';
export * from './generic-store';
export * from './list-options';
export * from './registry';
export * from './namespace-store';
export * from './table';
export { builtinResources } from './resources';
