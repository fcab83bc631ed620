/** config/: flags and files → typed, validated config. */
export * from './flags';
export * from './go-duration';
export { FlagError } from './pflag';
export * from './feature-gates';
export * from './versioned-config';
