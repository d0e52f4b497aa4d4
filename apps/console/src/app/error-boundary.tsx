/** Catches render errors and failed chunk downloads (a redeploy while the tab was open) with a way out. */
import { Component, type ReactNode } from 'react';
import { translate } from '../lib/messages';

interface State {
  error: unknown;
}

export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: undefined };

  static getDerivedStateFromError(error: unknown): State {
    return { error };
  }

  override componentDidCatch(error: unknown) {
    if (import.meta.env.DEV) console.error(error);
  }

  override render() {
    if (this.state.error === undefined) return this.props.children;
    return (
      <div className="app-error" role="alert">
        <p>{translate('app.loadError')}</p>
        <button type="button" onClick={() => window.location.reload()}>
          {translate('common.refresh')}
        </button>
      </div>
    );
  }
}
