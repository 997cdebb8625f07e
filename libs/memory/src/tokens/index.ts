export * from './token-counter';
