"""Screens of the cockpit: the main cockpit, gates, forms, dialogs, detail and help."""
