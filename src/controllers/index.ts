export * from './namespace-controller';
