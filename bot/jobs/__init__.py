"""Background work started with the application: the daily scheduler and the outbox sender."""
