import { QueryClient } from '@tanstack/react-query';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      // Each failed request already toasts; a silent retry would toast again with the same text.
      retry: false,
    },
    mutations: { retry: false },
  },
});
