-- 0032_tunnels: reserved; the module that owns it replaces this placeholder.
SELECT 1;
