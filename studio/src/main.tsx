import { render } from 'preact';
import './styles/base.css';
import './styles/layout.css';
import './styles/forms.css';
import './styles/preview.css';
import './styles/history.css';
import './styles/evals.css';
import './styles/charts.css';
import './styles/quality.css';
import './styles/webhooks.css';
import './styles/authoring.css';
import { App } from './views/app.js';

render(<App />, document.getElementById('app')!);
