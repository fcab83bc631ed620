/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking is done once by `tsc --noEmit` (make typecheck); jest only transpiles.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // @marcbachmann/cel-js ships ES modules only; Node loads it with require(), jest's loader cannot,
    // so jest compiles it to CommonJS.
    '/node_modules/@marcbachmann/cel-js/.+\\.js$': [
      'ts-jest',
      { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs', moduleResolution: 'node10', isolatedModules: true } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!@marcbachmann/cel-js/)'],
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  testTimeout: 60000,
};
