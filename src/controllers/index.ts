export * from './namespace-controller';
export * from './quota-controller';
export * from './service-account-controller';
