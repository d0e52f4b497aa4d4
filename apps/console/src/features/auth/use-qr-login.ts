import type { LoginResult } from '@cellhub/contract/auth';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../lib/request';
import { createWechatTicket, pollWechatTicket } from './api';

export const QR_POLL_INTERVAL_MS = 2000;

/**
 * `unavailable`: the ticket could not be made (network, server down): worth another try. `not_configured`: the
 * server answered that WeChat sign-in is not set up (20128 on creation): a refresh cannot change that.
 */
export type QrPhase =
  'loading' | 'waiting' | 'expired' | 'invalid' | 'failed' | 'unavailable' | 'not_configured' | 'done';

export interface QrState {
  phase: QrPhase;
  qrUrl?: string;
}

/** Server codes of a ticket poll (seed section 8) and what the QR panel shows for each. */
const PHASE_BY_CODE: Record<number, QrPhase> = {
  20122: 'expired',
  20123: 'invalid',
  20128: 'failed',
};
const NOT_SCANNED = 20124;

/**
 * WeChat QR sign-in: create a ticket, then ask the server every 2 s whether it was scanned and confirmed.
 * "Not scanned" keeps polling; expired/invalid/failed stop and offer a refresh.
 */
export function useQrLogin(onSuccess: (result: LoginResult) => void): QrState & { refresh: () => void } {
  const [state, setState] = useState<QrState>({ phase: 'loading' });
  // Each refresh starts a new generation; answers of an older ticket are ignored.
  const generation = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const onSuccessRef = useRef(onSuccess);
  useEffect(() => {
    onSuccessRef.current = onSuccess;
  });

  const refresh = useCallback(() => {
    const gen = ++generation.current;
    clearTimeout(timer.current);
    setState({ phase: 'loading' });

    const poll = (ticket: string) => {
      // check() settles every failure itself: it asks again or shows why it stopped.
      const check = async () => {
        try {
          const result = await pollWechatTicket(ticket);
          if (gen !== generation.current) return;
          setState((s) => ({ ...s, phase: 'done' }));
          onSuccessRef.current(result);
        } catch (e) {
          if (gen !== generation.current) return;
          const phase = e instanceof ApiError ? PHASE_BY_CODE[e.code] : undefined;
          if (phase) setState({ phase });
          // Not scanned yet, or a passing network hiccup: ask again.
          else if (
            !(e instanceof ApiError) ||
            e.code === NOT_SCANNED ||
            e.httpStatus === 0 ||
            e.httpStatus >= 500
          )
            poll(ticket);
          else setState({ phase: 'failed' });
        }
      };
      timer.current = setTimeout(() => void check(), QR_POLL_INTERVAL_MS);
    };

    createWechatTicket().then(
      (t) => {
        if (gen !== generation.current) return;
        setState({ phase: 'waiting', qrUrl: t.qr_url });
        poll(t.ticket);
      },
      (e: unknown) => {
        if (gen !== generation.current) return;
        const answered = e instanceof ApiError && e.code === 20128 && e.answered;
        setState({ phase: answered ? 'not_configured' : 'unavailable' });
      },
    );
  }, []);

  useEffect(() => {
    refresh();
    // Bumping the generation on unmount makes late answers of the last ticket land nowhere.
    const gen = generation;
    return () => {
      gen.current++;
      clearTimeout(timer.current);
    };
  }, [refresh]);

  return { ...state, refresh };
}
