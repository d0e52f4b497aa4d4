-- 0029_gateway_rules: reserved; the module that owns it replaces this placeholder.
SELECT 1;
