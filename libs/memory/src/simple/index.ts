export * from './simple.store';
export * from './simple.backend';
