export * from './namespace-controller';
export * from './quota-controller';
export * from './service-account-controller';
export * from './cluster-role-aggregation-controller';
export * from './rbac-bootstrap';
export * from './system-priority-classes';
