/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking is done once by `tsc --noEmit` (make typecheck); jest only transpiles.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 60000,
};
