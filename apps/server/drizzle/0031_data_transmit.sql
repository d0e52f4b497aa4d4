-- 0031_data_transmit: reserved; the module that owns it replaces this placeholder.
SELECT 1;
