// See driver.c.
int queuesim_fuzz_main(int argc, char **argv);
