export { loadOptionalModule, MissingPeerError } from '../core/optional-peer';
