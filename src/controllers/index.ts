export * from './namespace-controller';
export * from './quota-controller';
