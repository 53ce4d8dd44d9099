// A reader thread that ends before it reads any call, as one that cannot open the index would.
process.exit(1);
