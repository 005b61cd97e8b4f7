"""Languages: the message catalogs (`catalog`) and which language a reply speaks (`choice`)."""
