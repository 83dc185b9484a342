"""Widgets of the cockpit: tables, the satellite tree, the environment and breath panels."""
