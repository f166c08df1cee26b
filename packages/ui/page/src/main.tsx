/**
 * The inspector's page. This first script is small: it sends the requests
 * the first view makes (for the sessions view, one page of sessions and
 * the namespaces), then loads React and the app, which pick the answers up.
 * So the first paint waits on the slower of the two, not on both in turn.
 */
import { prefetch } from './api';
import { viewOf } from './route';
import './style.css';

prefetch('/overview');
if (viewOf(location.hash) === 'sessions') {
  prefetch('/sessions', { limit: 50 });
  prefetch('/namespaces');
}
void import('./mount').then(({ mount }) => mount(document.getElementById('root')!));
