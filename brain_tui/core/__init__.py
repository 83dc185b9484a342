"""Every rule and file format of the BSI protocol. Never imports Textual."""
