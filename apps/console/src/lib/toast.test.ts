import { describe, expect, it, vi } from 'vitest';

const message = vi.hoisted(() => ({ error: vi.fn(), warning: vi.fn(), success: vi.fn(), info: vi.fn() }));
vi.mock('@arco-design/web-react', () => ({ Message: message }));

describe('toast', () => {
  it('shows a toast asked for before Message has loaded, once it has', async () => {
    vi.resetModules();
    const { toast, loadToasts } = await import('./toast');
    toast('error', 'Network error', 5000);
    expect(message.error).not.toHaveBeenCalled();
    await loadToasts();
    await Promise.resolve();
    expect(message.error).toHaveBeenCalledWith({ content: 'Network error', duration: 5000 });
  });

  it('is synchronous once loaded, and passes plain text through without a duration', async () => {
    const { toast, loadToasts } = await import('./toast');
    await loadToasts();
    toast('success', 'Saved');
    expect(message.success).toHaveBeenCalledWith('Saved');
  });
});
