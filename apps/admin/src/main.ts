/**
 * The dashboard's entry, kept tiny: it starts the first view's API calls, then loads React and
 * the app (`app/boot.tsx`, preloaded by `index.html`), so data and code download side by side.
 */
import { prefetchFirstView } from './app/prefetch';
import './styles/app.css';

prefetchFirstView();
void import('./app/boot');
