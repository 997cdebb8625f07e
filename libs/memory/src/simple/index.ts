export * from './simple.store';
export * from './simple.backend';
export * from './in-memory-audit.log';
export * from './simple.driver';
export * from './simple.defaults';
